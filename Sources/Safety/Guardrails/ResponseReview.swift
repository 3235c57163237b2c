import Foundation

/// Checks what the coach says before it is kept: coaching, not therapy (no diagnosis, prescription or claim of
/// clinical expertise, FR18/FR21) and never harsh, dismissive or sarcastic (FR20). The prompt asks for all of
/// this; a model can still slip, so the answer is read sentence by sentence as it streams and the first
/// sentence that crosses the line is replaced by a gentle redirect that keeps the person company.
public enum ResponseReview {
    public enum Concern: String, Sendable, Codable {
        /// Names a condition the person has ("you have depression", "sounds like ADHD").
        case diagnosis
        /// Medication, doses or treatment changes ("take 50 mg", "stop your meds").
        case prescription
        /// Speaks as a clinician ("as a therapist", "I'm a licensed psychologist").
        case clinicalClaim = "clinical_claim"
        /// Harsh, dismissive or sarcastic ("get over it", "stop whining").
        case tone
    }

    public struct Finding: Sendable, Equatable {
        public let concern: Concern
        /// Where the sentence that crossed the line starts in the reviewed text.
        public let sentenceStart: String.Index
    }

    /// What replaces the answer from the sentence that crossed the line.
    public static func redirect(for concern: Concern) -> String {
        switch concern {
        case .diagnosis, .prescription, .clinicalClaim:
            "I want to be careful here: I'm a coach, not a clinician, so I can't diagnose anything or advise on " +
                "treatment or medication — a doctor or licensed therapist is the right person for that. What I can " +
                "do is help you think through what you'd like to ask them, or what would help you most this week. " +
                "Where would you like to start?"
        case .tone:
            "Let me put that better, because you deserve to be heard properly. What you're dealing with matters. " +
                "What feels most important to you about it right now?"
        }
    }

    /// The first sentence of `text` that crosses the line, among the sentences that begin at or after `from`
    /// and are complete (or all of them when `final`).
    public static func firstFinding(in text: String, from: String.Index, final: Bool) -> Finding? {
        var start = from
        var index = from
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if ".!?\n".contains(character) {
                if let concern = concern(in: text[start..<index]) { return Finding(concern: concern, sentenceStart: start) }
                start = index
            }
        }
        if final, start < text.endIndex, let concern = concern(in: text[start...]) {
            return Finding(concern: concern, sentenceStart: start)
        }
        return nil
    }

    /// Where the next review should begin: after the last complete sentence.
    public static func reviewedThrough(_ text: String, from: String.Index) -> String.Index {
        text[from...].lastIndex { ".!?\n".contains($0) }.map { text.index(after: $0) } ?? from
    }

    static func concern(in sentence: Substring) -> Concern? {
        let lowered = sentence.lowercased().replacingOccurrences(of: "’", with: "'")
        for rule in rules where rule.pattern.firstMatch(in: lowered, range: NSRange(lowered.startIndex..., in: lowered)) != nil {
            if let spared = rule.sparedBy,
               spared.firstMatch(in: lowered, range: NSRange(lowered.startIndex..., in: lowered)) != nil {
                continue
            }
            return rule.concern
        }
        return nil
    }

    struct Rule: @unchecked Sendable {
        let concern: Concern
        let pattern: NSRegularExpression
        /// A sentence that also matches this is fine (it sends the person to a professional, or warns).
        let sparedBy: NSRegularExpression?

        init(_ concern: Concern, _ pattern: String, sparedBy: String? = nil) {
            self.concern = concern
            // The patterns are constants: a bad one is a programming error caught by the tests.
            self.pattern = try! NSRegularExpression(pattern: pattern)
            self.sparedBy = sparedBy.map { try! NSRegularExpression(pattern: $0) }
        }
    }

    static let conditions =
        "(clinical depression|major depression|depression|a depressive disorder|an? (generali[sz]ed )?anxiety disorder|" +
        "gad|ptsd|c-ptsd|ocd|adhd|add|bipolar( disorder)?|borderline( personality disorder)?|bpd|" +
        "(a |an )?(narcissistic |avoidant |antisocial )?personality disorder|autism|asperger'?s|schizophrenia|psychosis|" +
        "an eating disorder|anorexia|bulimia|binge eating disorder|panic disorder|social anxiety disorder|insomnia|" +
        "a mood disorder|dysthymia|seasonal affective disorder|sad)"
    static let medicines =
        "(medication|medicine|meds|pills|antidepressants?|anti-anxiety meds|ssris?|snris?|sertraline|zoloft|prozac|" +
        "fluoxetine|lexapro|escitalopram|citalopram|paroxetine|venlafaxine|xanax|alprazolam|valium|diazepam|" +
        "klonopin|clonazepam|ativan|lorazepam|adderall|ritalin|lithium|lamotrigine|quetiapine|seroquel|" +
        "benzodiazepines?|benzos|sleeping pills|ambien|zolpidem|melatonin|st\\.? john'?s wort)"
    /// Sending the person to a professional, or telling them not to change medication alone, is in scope.
    static let professional =
        "(doctor|gp|physician|psychiatrist|prescriber|pharmacist|therapist|psychologist|clinician|nurse|" +
        "medical professional|health ?care provider|don'?t (stop|change|start)|do not (stop|change|start)|never (stop|change))"

    static let rules: [Rule] = [
        Rule(.diagnosis,
             "\\byou('ve| have)? (probably |likely |clearly |definitely |may |might |could |must )?(have|have got|'ve got|" +
                 "are suffering from|suffer from|are showing (signs|symptoms) of|meet the criteria for|are experiencing) " +
                 conditions + "\\b"),
        Rule(.diagnosis,
             "\\b(sounds|seems|looks) (a lot |very much )?like (you have |you've got |you're suffering from )?" +
                 "(clinical depression|major depression|(an? )?(anxiety|panic|eating|bipolar|personality|mood) disorder|" +
                 "ptsd|ocd|adhd|bipolar|bpd|autism|narcissism)\\b"),
        Rule(.diagnosis, "\\b(my diagnosis|i('d| would)? diagnose|i('d| would) say you have|you are (clinically depressed|bipolar|autistic|a narcissist))\\b"),
        Rule(.prescription, "\\b\\d+(\\.\\d+)? ?(mg|milligrams?|mcg|micrograms?)\\b", sparedBy: professional),
        Rule(.prescription,
             "\\b(take|try|start|increase|decrease|double|halve|stop|quit|taper|come off|get off|go on|up|lower|skip) " +
                 "(taking )?(your |the |some |a |an |on )?(dose|dosage|" + medicines.dropFirst() + "\\b",
             sparedBy: professional),
        Rule(.prescription,
             "\\bi (would |'d )?(recommend|prescribe|suggest|advise) (that you )?(take |taking |you take |going on |trying )?" +
                 medicines + "\\b", sparedBy: professional),
        Rule(.clinicalClaim,
             "\\b(as (a|your) (therapist|psychologist|psychiatrist|doctor|physician|clinician|counsell?or|psychotherapist|nurse)|" +
                 "i('m| am) (a |your )?(licensed |qualified |certified |registered |trained )?(therapist|psychologist|" +
                 "psychiatrist|doctor|physician|clinician|counsell?or|psychotherapist)|in my (clinical|medical|professional medical) " +
                 "(opinion|judg(e)?ment|experience))\\b"),
        Rule(.clinicalClaim, "\\b(this|my|our) (therapy|treatment|program(me)?|coaching) (will|can) (cure|heal|treat) (your )?" + conditions + "\\b"),
        Rule(.tone,
             "\\b(stop (whining|complaining|moaning|being (so )?(dramatic|pathetic|lazy|needy|sensitive))|get over (it|yourself)|" +
                 "man up|toughen up|grow up|suck it up|that'?s (stupid|pathetic|ridiculous|dumb)|" +
                 "you('re| are) (being )?(pathetic|stupid|lazy|an idiot|ridiculous|so dramatic|overreacting|a failure|hopeless)|" +
                 "nobody cares|who cares|boo ?hoo|cry me a river|(it'?s|that'?s) (all )?your own fault|what did you expect|" +
                 "whatever you say|oh please|give me a break)\\b"),
    ]
}
