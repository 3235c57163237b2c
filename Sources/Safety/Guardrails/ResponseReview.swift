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
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            if isSentenceEnd(byte) {
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
        text.utf8[from...].lastIndex(where: isSentenceEnd).map { text.utf8.index(after: $0) } ?? from
    }

    /// ".", "!", "?" or a line break, read as bytes: the answer is reviewed as it streams, a delta at a time, and
    /// ASCII never occurs inside a longer UTF-8 sequence.
    static func isSentenceEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "\n")
    }

    /// `anchored`: skip the rules whose anchors the sentence lacks (false only in the tests, which compare).
    static func concern(in sentence: Substring, anchored: Bool = true) -> Concern? {
        var lowered = sentence.lowercased()
        // "’" is E2 80 99 in UTF-8: most sentences have no E2 byte at all.
        if lowered.utf8.contains(0xE2) { lowered = lowered.replacingOccurrences(of: "’", with: "'") }
        let candidates = anchored ? anchorIndex.rules(in: lowered) : ~0
        for (index, rule) in rules.enumerated() where candidates & (1 << index) != 0
            && rule.pattern.firstMatch(in: lowered, range: NSRange(lowered.startIndex..., in: lowered)) != nil {
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
        /// Words of which every match of `pattern` contains at least one: a sentence with none of them is not
        /// searched (most sentences of most answers), which keeps the review off the turn's CPU profile.
        let anchors: [String]
        /// A sentence that also matches this is fine (it sends the person to a professional, or warns).
        let sparedBy: NSRegularExpression?

        init(_ concern: Concern, _ pattern: String, anchors: [String], sparedBy: String? = nil) {
            self.concern = concern
            // The patterns are constants: a bad one is a programming error caught by the tests.
            self.pattern = try! NSRegularExpression(pattern: pattern)
            self.anchors = anchors
            self.sparedBy = sparedBy.map { try! NSRegularExpression(pattern: $0) }
        }
    }

    /// Every rule's anchors by their first byte, so that one pass over a sentence finds the rules worth running.
    struct AnchorIndex: Sendable {
        private var byFirstByte: [[(anchor: [UInt8], rule: Int)]] = Array(repeating: [], count: 256)

        init(_ rules: [Rule]) {
            precondition(rules.count <= 64, "a bit per rule")
            for (rule, anchors) in rules.map(\.anchors).enumerated() {
                for anchor in anchors.map({ Array($0.utf8) }) {
                    byFirstByte[Int(anchor[0])].append((anchor, rule))
                }
            }
        }

        /// The rules with an anchor in `sentence` (lowercased), a bit each.
        func rules(in sentence: String) -> UInt64 {
            var found: UInt64 = 0
            var sentence = sentence
            sentence.withUTF8 { bytes in
                for start in bytes.indices {
                    for (anchor, rule) in byFirstByte[Int(bytes[start])] where found & (1 << rule) == 0 && start + anchor.count <= bytes.count {
                        var matched = 1
                        while matched < anchor.count, bytes[start + matched] == anchor[matched] { matched += 1 }
                        if matched == anchor.count { found |= 1 << rule }
                    }
                }
            }
            return found
        }
    }

    static let anchorIndex = AnchorIndex(rules)

    /// Anchors for ``conditions``: each condition contains one.
    static let conditionAnchors = [
        "depress", "disorder", "gad", "ptsd", "ocd", "adhd", "add", "bipolar", "borderline", "bpd", "autism", "asperger",
        "schizophrenia", "psychosis", "anorexia", "bulimia", "insomnia", "dysthymia", "sad",
    ]
    /// Anchors for ``medicines``, and "dos" for a dose or dosage.
    static let medicineAnchors = [
        "medic", "meds", "pills", "antidepressant", "ssri", "snri", "sertraline", "zoloft", "prozac", "fluoxetine",
        "lexapro", "citalopram", "paroxetine", "venlafaxine", "xanax", "alprazolam", "valium", "diazepam", "klonopin",
        "clonazepam", "ativan", "lorazepam", "adderall", "ritalin", "lithium", "lamotrigine", "quetiapine", "seroquel",
        "benzo", "ambien", "zolpidem", "melatonin", "wort",
    ]

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
             "\\byou('ve| have)? (probably |likely |clearly |definitely |may |might |could |must )?(have|have got|got|" +
                 "are suffering from|suffer from|are showing (signs|symptoms) of|meet the criteria for|are experiencing) " +
                 conditions + "\\b", anchors: conditionAnchors),
        Rule(.diagnosis,
             "\\b(sounds|seems|looks) (a lot |very much )?like (you have |you've got |you're suffering from )?" +
                 "(clinical depression|major depression|(an? )?(anxiety|panic|eating|bipolar|personality|mood) disorder|" +
                 "ptsd|ocd|adhd|bipolar|bpd|autism|narcissism)\\b",
             anchors: ["depress", "disorder", "ptsd", "ocd", "adhd", "bipolar", "bpd", "autism", "narcissism"]),
        Rule(.diagnosis, "\\b(my diagnosis|i('d| would)? diagnose|i('d| would) say you have|you are (clinically depressed|bipolar|autistic|a narcissist))\\b",
             anchors: ["diagnos", "say you have", "clinically depressed", "bipolar", "autistic", "narcissist"]),
        Rule(.prescription, "\\b\\d+(\\.\\d+)? ?(mg|milligrams?|mcg|micrograms?)\\b", anchors: ["mg", "milligram", "mcg", "microgram"],
             sparedBy: professional),
        Rule(.prescription,
             "\\b(take|try|start|increase|decrease|double|halve|stop|quit|taper|come off|get off|go on|up|lower|skip) " +
                 "(taking )?(your |the |some |a |an |on )?(dose|dosage|" + medicines.dropFirst() + "\\b",
             anchors: ["dos"] + medicineAnchors, sparedBy: professional),
        Rule(.prescription,
             "\\bi( would|'d)? (recommend|prescribe|suggest|advise) (that you )?(take |taking |you take |going on |trying )?" +
                 medicines + "\\b", anchors: medicineAnchors, sparedBy: professional),
        Rule(.clinicalClaim,
             "\\b(as (a|your) (therapist|psychologist|psychiatrist|doctor|physician|clinician|counsell?or|psychotherapist|nurse)|" +
                 "i('m| am) (a |your )?(licensed |qualified |certified |registered |trained )?(therapist|psychologist|" +
                 "psychiatrist|doctor|physician|clinician|counsell?or|psychotherapist)|in my (clinical|medical|professional medical) " +
                 "(opinion|judg(e)?ment|experience))\\b",
             anchors: ["therapist", "psycholog", "psychiatr", "doctor", "physician", "clinician", "counsel", "nurse", "clinical", "medical"]),
        Rule(.clinicalClaim, "\\b(this|my|our) (therapy|treatment|program(me)?|coaching) (will|can) (cure|heal|treat) (your )?" + conditions + "\\b",
             anchors: ["cure", "heal", "treat"]),
        Rule(.tone,
             "\\b(stop (whining|complaining|moaning|being (so )?(dramatic|pathetic|lazy|needy|sensitive))|get over (it|yourself)|" +
                 "man up|toughen up|grow up|suck it up|that'?s (stupid|pathetic|ridiculous|dumb)|" +
                 "you('re| are) (being )?(pathetic|stupid|lazy|an idiot|ridiculous|so dramatic|overreacting|a failure|hopeless)|" +
                 "nobody cares|who cares|boo ?hoo|cry me a river|(it'?s|that'?s) (all )?your own fault|what did you expect|" +
                 "whatever you say|oh please|give me a break)\\b",
             anchors: ["whining", "complaining", "moaning", "dramatic", "pathetic", "lazy", "needy", "sensitive", "get over", "man up",
                       "toughen up", "grow up", "suck it up", "stupid", "ridiculous", "dumb", "idiot", "overreacting", "failure",
                       "hopeless", "cares", "boo", "cry me a river", "own fault", "what did you expect", "whatever you say",
                       "oh please", "give me a break"]),
    ]
}
