import Safety
import Testing

/// The crisis classifier's readers, one behaviour at a time (the labelled sets under evals/ measure it as a whole).
@Suite struct CrisisDetectorTests {
    let detector = CrisisDetector()

    @Test(arguments: [
        ("I want to kill myself", CrisisKind.suicidal),
        ("honestly everyone would be better off without me", .suicidal),
        ("I don't want to be here anymore", .suicidal),
        ("been looking up how many of my pills it would take", .suicidal),
        ("the urge to cut is back and I gave in last night", .selfHarm),
        ("burned my wrist with a lighter after the call", .selfHarm),
        ("my husband checks my phone every night and won't let me see my sister", .abuse),
        ("he told me if I call the police he'll hurt the dog", .abuse),
        ("I keep picturing stabbing him, it's getting really vivid", .harmToOthers),
        ("I'm scared I'll hurt my baby when she won't stop crying", .harmToOthers),
        ("my friend just texted that she took a bunch of pills", .thirdParty),
        ("my sister's boyfriend hits her and she won't leave", .thirdParty),
    ])
    func crisesAreFoundWithTheirKind(text: String, kind: CrisisKind) {
        let assessment = detector.assess(text)
        #expect(assessment.crisis == kind, "\(assessment.signals)")
    }

    @Test(arguments: [
        "this deadline is killing me",
        "I could kill for a coffee right now",
        "I'm dying to see the new season",
        "my mum will literally murder me if I miss her birthday",
        "killed it at the gym today, new deadlift PR",
        "I'd die of embarrassment if they read my poems",
        "just want to disappear for a week somewhere with no wifi",
    ])
    func figurativeSpeechIsNotACrisis(text: String) {
        let assessment = detector.assess(text)
        #expect(!assessment.isCrisis, "\(assessment.signals)")
    }

    @Test func aDenialIsNotACrisisButANegativeWishIs() {
        #expect(!detector.assess("I'm not going to kill myself, I just hate this job").isCrisis)
        #expect(!detector.assess("I would never hurt myself").isCrisis)
        #expect(detector.assess("not gonna lie, I want to die").crisis == .suicidal)
        let negated = detector.assess("I would never hurt myself").signals.first
        #expect(negated?.modifiers == ["negated"])
    }

    @Test func theLongPastIsNotACrisisButARelapseIs() {
        #expect(!detector.assess("I used to cut myself when I was 15, ten years clean now").isCrisis)
        #expect(!detector.assess("6 years clean from self harm as of today, want to celebrate").isCrisis)
        #expect(detector.assess("I used to self harm and I relapsed last night").crisis == .selfHarm)
    }

    @Test func fictionAndStudyAreFramedButTheWriterIsNot() {
        #expect(!detector.assess("my novel's villain wants to kill himself in chapter 3, is that too dark?").isCrisis)
        #expect(!detector.assess("for my psych essay: why do people self harm?").isCrisis)
        #expect(detector.assess("I'm writing again but honestly I want to kill myself").crisis == .suicidal)
    }

    @Test func someoneElsesRiskIsAThirdParty() {
        #expect(detector.assess("my roommate keeps saying she wants to die").crisis == .thirdParty)
        #expect(detector.assess("my brother texted \"I want to die\" at 2am").crisis == .thirdParty)
        #expect(!detector.assess("the song goes \"I want to die young\" and it's stuck in my head").isCrisis)
    }

    @Test(arguments: ["kms fr", "i wanna unalive myself", "thinking about suicde a lot lately", "i want to kil myslef"])
    func slangAndTyposAreRead(text: String) {
        #expect(detector.assess(text).crisis == .suicidal)
    }

    @Test func signalsNameCuesNeverText() {
        let assessment = detector.assess("My boyfriend Dave hits me")
        #expect(assessment.crisis == .abuse)
        #expect(!assessment.signals.isEmpty)
        for signal in assessment.signals {
            #expect(!signal.description.lowercased().contains("dave"))
        }
    }

    @Test func emptyAndOrdinaryMessagesScoreNothing() {
        #expect(detector.assess("") == .none)
        #expect(detector.assess("how do I ask my manager for a raise?").score == 0)
    }
}

@Suite struct TokenPatternTests {
    func matches(_ pattern: String, _ text: String) -> Bool {
        let words = Tokens(text).words
        return TokenPattern(pattern).firstMatch(in: words, range: 0..<words.count) != nil
    }

    @Test func wordsChoicesSequencesOptionalsGapsAndClasses() {
        #expect(matches("end|take my own? life", "I want to end my life"))
        #expect(matches("end|take my own? life", "take my own life"))
        #expect(matches("end|take my_own|my_whole life", "take my whole life"))
        #expect(!matches("end|take my own? life", "end of my working life"))
        #expect(matches("want ~2 die", "want to just die"))
        #expect(!matches("want ~1 die", "want to just die"))
        #expect(matches("suicid* thoughts", "suicidal thoughts"))
        #expect(matches("@neg want", "I don't want"))
    }

    @Test func normalisationExpandsContractionsAndSlang() {
        #expect(Tokens("I'm gonna").words == ["i", "am", "going", "to"])
        #expect(Tokens("kms").words == ["kill", "myself"])
        #expect(Tokens("soooo tired").words == ["soo", "tired"])
        #expect(Tokens("naïve").words == ["naive"])
    }
}
