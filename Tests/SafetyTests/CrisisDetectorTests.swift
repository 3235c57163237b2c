@testable import Safety
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
        #expect(!detector.assess("6 years clean from self harm as of today, want to celebrate").isCrisis)
        #expect(detector.assess("I used to self harm and I relapsed last night").crisis == .selfHarm)
        // A short tag after a past clause can bring it into the present, or leave it behind.
        #expect(detector.assess("I used to burn myself at uni, still do when it's bad").crisis == .selfHarm)
        #expect(!detector.assess("I used to burn myself at uni. still amazed I got through it").isCrisis)
    }

    @Test func fictionAndStudyAreFramedButTheWriterIsNot() {
        #expect(!detector.assess("my novel's villain wants to kill himself in chapter 3, is that too dark?").isCrisis)
        #expect(!detector.assess("for my psych essay: why do people self harm?").isCrisis)
        #expect(detector.assess("I'm writing again but honestly I want to kill myself").crisis == .suicidal)
    }

    @Test func someoneElsesRiskIsAThirdParty() {
        #expect(detector.assess("my roommate keeps saying she wants to die").crisis == .thirdParty)
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

    /// Indirect disclosures: the means, the plan, the farewell, without the words "suicide" or "kill".
    @Test(arguments: [
        ("handed all my stuff out to mates this week, I won't be needing it", CrisisKind.suicidal),
        ("swallowed 25 of my nan's sleeping tablets about an hour ago", .suicidal),
        ("got the tablets lined up on the bedside table", .suicidal),
        ("I've worked out when I'll do it, the date is set", .suicidal),
        ("left a note on the fridge saying sorry to my parents", .suicidal),
        ("I'm ready to meet my maker, I've made my peace", .suicidal),
        ("honestly it would be easier for everyone if I wasn't here", .suicidal),
        ("can't imagine myself being around by next summer", .suicidal),
    ])
    func indirectSuicidalLanguageIsFound(text: String, kind: CrisisKind) {
        #expect(detector.assess(text).crisis == kind, "\(detector.assess(text).signals)")
    }

    /// Self-harm said as what was done, not named: "on purpose", objects on skin, cutting with no object.
    @Test(arguments: [
        "held the curling tongs hot against my forearm",
        "every night after dinner I make myself throw up",
        "when the panic comes I cut",
        "punched the bathroom tiles until my knuckles bled",
        "bit my knuckles until they bled",
    ])
    func selfHarmDescribedIsFound(text: String) {
        #expect(detector.assess(text).crisis == .selfHarm, "\(detector.assess(text).signals)")
    }

    @Test(arguments: [
        ("he hides my car keys so I can't leave", CrisisKind.abuse),
        ("my manager said my visa depends on whether I'm nice to him", .abuse),
        ("he posted naked pictures of me in a group chat", .abuse),
        ("my girlfriend decides who I'm allowed to call", .abuse),
        ("I'm going to glass that lad at the pub tonight", .harmToOthers),
        ("going to torch his van while he's asleep", .harmToOthers),
        ("I know where my stepdad keeps his shotgun and I've been thinking about it, they'll regret it", .harmToOthers),
        ("been slipping laxatives into my housemate's tea to make her ill", .harmToOthers),
        ("my friend's dad won't let her eat and locks her in the shed", .thirdParty),
        ("my flatmate's been sitting in the garage with the car running", .thirdParty),
        ("my cousin sent me a photo of his wrists and said goodbye", .thirdParty),
        ("my brother texted \"I want to die\" at 2am", .thirdParty),
    ])
    func controlThreatsAndOthersAreFound(text: String, kind: CrisisKind) {
        #expect(detector.assess(text).crisis == kind, "\(detector.assess(text).signals)")
    }

    /// What the rules find, whatever the model decides: the model outweighs them on these sentences today
    /// (docs/safety.md, "Known misses"), and the rules' reading is what a retrained model gets to weigh.
    @Test func theRulesReadTheKnownMisses() {
        let coercion = detector.assess("my landlord keeps hinting I could pay the rent another way").signals
        #expect(coercion.map(\.kind) == [.abuse] && coercion.allSatisfy { $0.modifiers.isEmpty })
        let past = detector.assess("I used to cut myself when I was 15, ten years clean now").signals
        #expect(!past.isEmpty && past.allSatisfy { $0.modifiers == ["past"] })
        let relayed = detector.assess("my brother texted \"I want to die\" at 2am").signals
        #expect(!relayed.isEmpty && relayed.allSatisfy { $0.kind == .thirdParty && $0.modifiers.isEmpty })
        let method = detector.assess("does it hurt much to bleed out").signals
        #expect(method.map(\.kind) == [.suicidal] && method.allSatisfy { $0.modifiers.isEmpty })
        #expect(detector.assess("I won't be a problem for my manager much longer, I quit today!").signals.isEmpty)
    }

    /// What the detector decides on them today: wrong. When a retrain gets one right this test fails, and the
    /// sentence goes back to the behaviour tests it came from.
    @Test func theKnownMissesAreStillMissed() {
        for text in ["my landlord keeps hinting I could pay the rent another way", "does it hurt much to bleed out"] {
            withKnownIssue { #expect(detector.assess(text).isCrisis, "\(text)") }
        }
        for text in ["I used to cut myself when I was 15, ten years clean now", "I won't be a problem for my manager much longer, I quit today!"] {
            withKnownIssue { #expect(!detector.assess(text).isCrisis, "\(text)") }
        }
    }

    /// Deliberately skipping heart medication "so something would happen" is found; whether it is self-harm or
    /// suicidal is for a person to ask, and the model says suicidal.
    @Test func harmThroughMedicationIsACrisis() {
        #expect(detector.assess("skipped my heart pills deliberately so something would happen").isCrisis)
    }

    /// The same words at work, in study, in the kitchen, between children, or about a job.
    @Test(arguments: [
        "I lead suicide prevention training for our volunteers, any tips on slides?",
        "I'm a social worker and we had two domestic abuse cases in court today",
        "my doctor asked whether I'd thought about self-harm and honestly I haven't",
        "if a student ever told me they were cutting, what should I do?",
        "I'd rather die than do karaoke at the office party",
        "I'm ending things with my girlfriend tomorrow, how do I say it?",
        "overdosed on coffee before my exam, so jittery",
        "my toddler bit another kid at daycare again",
        "I hurt myself laughing at that video",
        "bringing my big knife to carve the turkey",
        "the commute is killing me",
        "had my hair cut again, too short",
        "I could murder a kebab after that shift",
        "she's going to pay for lunch tomorrow",
        "how do I stop checking my phone every five minutes?",
        "my nephew keeps talking about dying his hair blue",
    ])
    func sharedWordsInOrdinaryLifeAreNotACrisis(text: String) {
        let assessment = detector.assess(text)
        #expect(!assessment.isCrisis, "\(assessment.signals)")
    }

    @Test func someoneElsesCrisisWordsAreNotTheWritersSubject() {
        // An owner is not the one acting: "my dad's gun" is in the writer's hands.
        #expect(detector.assess("I took my dad's gun, they're all going to regret it").crisis == .harmToOthers)
        // "and I" starts a clause of its own: last year's loss does not make today's words past.
        #expect(detector.assess("my husband died last year and I see no reason to carry on").crisis == .suicidal)
        // A story posted on social media is not fiction.
        #expect(detector.assess("my friend posted \"goodbye everyone\" on her story and won't answer").crisis == .thirdParty)
    }

    @Test func emptyAndOrdinaryMessagesAreNotACrisis() {
        let empty = detector.assess("")
        #expect(!empty.isCrisis && empty.score == 0 && empty.signals.isEmpty)
        let ordinary = detector.assess("how do I ask my manager for a raise?")
        #expect(!ordinary.isCrisis && ordinary.signals.isEmpty)
    }
}

@Suite struct TokenPatternTests {
    func matches(_ pattern: String, _ text: String) -> Bool {
        let keyed = Tokens(text).keyed
        return TokenPattern(pattern).firstMatch(in: keyed, range: 0..<keyed.words.count) != nil
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

    @Test func clauseEndsAndCounts() {
        #expect(matches("@self cut $", "every time I cut"))
        #expect(!matches("@self cut $", "I cut the cake"))
        #expect(matches("took # pills", "took 20 pills"))
        #expect(matches("took # pills", "took fifty pills"))
        #expect(!matches("took # pills", "took 2 pills"))
    }

    @Test func normalisationExpandsContractionsAndSlang() {
        #expect(Tokens("I'm gonna").words == ["i", "am", "going", "to"])
        #expect(Tokens("kms").words == ["kill", "myself"])
        #expect(Tokens("soooo tired").words == ["soo", "tired"])
        #expect(Tokens("naïve").words == ["naive"])
        // Repeats: kept as two, as one when only that is a word; and typos one edit from a cue word.
        #expect(Tokens("killlll myselfff").words == ["kill", "myself"])
        #expect(Tokens("feeeeling").words == ["feeling"])
        #expect(Tokens("suicdal thoughts").words == ["suicidal", "thoughts"])
        #expect(Tokens("hunting trip").words == ["hunting", "trip"])
    }

    /// The ASCII shortcut for letters agrees with Unicode's property everywhere it applies.
    @Test func letterShortcutAgreesWithUnicode() {
        for value in UInt32(0)..<0x80 {
            let scalar = Unicode.Scalar(value)!
            #expect(Tokens.isLetter(scalar) == scalar.properties.isAlphabetic, "\(value)")
        }
        for scalar in "éßπжあ😂-·".unicodeScalars { #expect(Tokens.isLetter(scalar) == scalar.properties.isAlphabetic) }
    }

    @Test func apostrophesAreReadAsContractionsPossessivesOrQuotes() {
        #expect(Tokens("he'll regret it").words == ["he", "will", "regret", "it"])
        #expect(Tokens("my ex's house").words == ["my", "ex", "house"])
        #expect(Tokens("she's fine").words == ["shes", "fine"])
        let quoted = Tokens("she yelled 'I hate you' and left")
        #expect(quoted.tokens.map(\.quoted) == [false, false, true, true, true, false, false])
        #expect(Tokens("my mum's car").tokens[1].possessive)
    }

    @Test func aNewSubjectAfterAndStartsAClause() {
        let tokens = Tokens("it ended years ago and I want to die").tokens
        #expect(tokens.first { $0.word == "want" }?.clause != tokens.first { $0.word == "ended" }?.clause)
    }
}
