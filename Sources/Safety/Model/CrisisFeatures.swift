import Foundation

/// What ``CrisisModel`` reads from a message: the rule reader's findings and the words around them.
///
/// - `rule:<kind>`: the cues of that kind combined, as −log(1 − score) so that near-certain cues can outweigh
///   the words around them, and `rule:<kind>+laughs` the same beside laughter; `cue:<name>` each cue's score,
///   `mod:<reason>` whether any cue was weakened for that reason, `laughs`;
/// - `len:<bucket>` how long the message is;
/// - the word and letter blocks of ``TextFeatures``. The words of a cue the rules weakened are read as weakened:
///   in "I used to cut myself when I was 15" they are `past:cut`, `past:myself`, so what the rules know about
///   negation, tense and framing reaches the words too. The blocks' scaling (the rule features, `bias`, `len:`
///   and `laughs` keep their values) was chosen by leaving one training file out at a time: at the same
///   false-positive rate it found more of the crises the model had not been trained on (docs/safety.md).
///
/// Words are the normalised ones of ``Tokens`` ("im gonna kms" reads `i am going to kill myself`), so spelling,
/// slang and contractions share one feature. Names only ever reach the model and development output
/// (``CrisisAssessment/evidence``): word features are message text and are never stored or logged.
enum CrisisFeatures {
    /// A message as the rules read it and as features: the one reading the detector and the trainer share.
    static func read(_ text: String, rules: CrisisRules) -> (tokens: Tokens, signals: [CrisisAssessment.Signal], features: [String: Double]) {
        let tokens = Tokens(text)
        let signals = rules.read(tokens)
        return (tokens, signals, extract(tokens, signals: signals))
    }

    /// Feature names and values; each name once.
    static func extract(_ tokens: Tokens, signals: [CrisisAssessment.Signal]) -> [String: Double] {
        var features: [String: Double] = ["bias": 1]
        // Roughly three word features and eight letter runs a word: growing the table as it fills costs more.
        features.reserveCapacity(16 + tokens.tokens.count * 11)
        for (kind, score) in CrisisRules.combine(signals) {
            let value = -log(max(1 - score, 0.001))
            features["rule:" + kind.rawValue] = value
            // The same finding beside laughter is a feature of its own, weighed by the data: "I'll jump off a
            // bridge haha" and "end it lol" after a run of real losses differ in their other words (round 6).
            if tokens.laughs { features["rule:" + kind.rawValue + "+laughs"] = value }
        }
        for signal in signals {
            features["cue:" + signal.cue] = max(features["cue:" + signal.cue] ?? 0, signal.score)
            for reason in signal.modifiers { features["mod:" + reason] = 1 }
        }
        if tokens.laughs { features["laughs"] = 1 }
        let count = tokens.tokens.count
        features["len:" + (count <= 3 ? "1-3" : count <= 8 ? "4-8" : count <= 20 ? "9-20" : "21+")] = 1
        var weakened: [Int: String] = [:]
        for signal in signals {
            guard let reason = signal.modifiers.first else { continue }
            for index in signal.span { weakened[index] = reason }
        }
        TextFeatures.addBlocks(tokens, weakened: weakened, to: &features)
        return features
    }
}
