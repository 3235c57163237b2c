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
    /// A message as the rules read it and as features by name: the one reading the trainer and the tests share
    /// with the detector (which scores the same extraction by hash).
    static func read(_ text: String, rules: CrisisRules) -> (tokens: Tokens, signals: [CrisisAssessment.Signal], features: [String: Double]) {
        let tokens = Tokens(text)
        let signals = rules.read(tokens)
        return (tokens, signals, named(tokens, signals: signals))
    }

    static func named(_ tokens: Tokens, signals: [CrisisAssessment.Signal]) -> [String: Double] {
        // Roughly three word features and eight letter runs a word: growing the table as it fills costs more.
        var features = NamedFeatures(capacity: 16 + tokens.tokens.count * 11)
        extract(tokens, signals: signals, into: &features)
        return features.values
    }

    /// Every feature, each name once.
    static func extract(_ tokens: Tokens, signals: [CrisisAssessment.Signal], into features: inout some FeatureSink) {
        var name = FeatureName("bias")
        features.set(name, 1)
        for (kind, score) in CrisisRules.combine(signals) {
            let value = -log(max(1 - score, 0.001))
            name.start("rule:")
            name.append(kind.rawValue)
            features.set(name, value)
            // The same finding beside laughter is a feature of its own, weighed by the data: "I'll jump off a
            // bridge haha" and "end it lol" after a run of real losses differ in their other words (round 6).
            if tokens.laughs {
                name.append("+laughs")
                features.set(name, value)
            }
        }
        for signal in signals {
            name.start("cue:")
            name.append(signal.cue)
            features.set(name, signal.score, keepingLarger: true)
            for reason in signal.modifiers {
                name.start("mod:")
                name.append(reason)
                features.set(name, 1)
            }
        }
        if tokens.laughs { features.set(FeatureName("laughs"), 1) }
        let count = tokens.tokens.count
        name.start("len:")
        name.append(count <= 3 ? "1-3" : count <= 8 ? "4-8" : count <= 20 ? "9-20" : "21+")
        features.set(name, 1)
        var weakened: [Int: String] = [:]
        for signal in signals {
            guard let reason = signal.modifiers.first else { continue }
            for index in signal.span { weakened[index] = reason }
        }
        TextFeatures.addBlocks(tokens, weakened: weakened, to: &features)
    }
}
