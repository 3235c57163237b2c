import Foundation

/// Trains ``CrisisModel`` from labelled messages (`hearth train crisis`, docs/safety.md): L2-regularised
/// multinomial logistic regression, full-batch Adam, deterministic — the same files give the same weights.
public struct CrisisModelTrainer: Sendable {
    public struct Example: Sendable {
        public let text: String
        /// nil: not a crisis.
        public let kind: CrisisKind?

        public init(text: String, kind: CrisisKind?) {
            self.text = text
            self.kind = kind
        }
    }

    public struct Options: Sendable {
        /// Inverse regularisation strength, as in scikit-learn: larger fits the examples more closely.
        public var inverseRegularisation = 10.0
        /// Features seen in fewer examples than this are dropped: one or two messages' wording teaches nothing
        /// general (with 2 the dev sets scored the same from a third more features).
        public var minimumCount = 3
        public var iterations = 400
        public var learningRate = 0.05
        /// The crisis probability from which a message counts as a crisis: chosen on the three dev sets pooled,
        /// the lowest that keeps their false-positive rate near 2.5% (docs/safety.md). A missed crisis costs far
        /// more than a coach that checks on someone who is fine.
        public var threshold = 0.25
        /// The same for a message in which the rules found no cue or role: words alone are weaker evidence
        /// (an ordinary career message, "My manager just told me I lack strategic thinking…", once scored 0.4).
        public var wordsOnlyThreshold = 0.35

        public init() {}
    }

    let rules = CrisisRules()

    public init() {}

    public func train(_ examples: [Example], options: Options = .init()) -> CrisisModel {
        let extracted = examples.map { CrisisFeatures.read($0.text, rules: rules).features }
        var counts: [String: Int] = [:]
        for features in extracted { for name in features.keys { counts[name, default: 0] += 1 } }
        let names = counts.filter { $0.value >= options.minimumCount }.keys.sorted()
        let column = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let rows = extracted.map { features in
            features.compactMap { name, value in column[name].map { ($0, value) } }.sorted { $0.0 < $1.0 }
        }
        let labels = examples.map { example in CrisisModel.classes.firstIndex(of: example.kind)! }
        let weights = Self.fit(rows: rows, labels: labels, features: names.count, bias: column["bias"], options: options)
        let classes = CrisisModel.classes.count
        var table: [String: [Double]] = [:]
        for (index, name) in names.enumerated() {
            let row = Array(weights[index * classes..<(index + 1) * classes])
            // Weights this small change no probability by more than a rounding error: they only cost size.
            if row.contains(where: { abs($0) >= 0.005 }) { table[name] = row }
        }
        return CrisisModel(weights: table, threshold: options.threshold, wordsOnlyThreshold: options.wordsOnlyThreshold)
    }

    /// Minimises mean cross-entropy + λ/2·‖W‖² (bias unregularised), λ = 1 / (C · examples).
    static func fit(rows: [[(Int, Double)]], labels: [Int], features: Int, bias: Int?, options: Options) -> [Double] {
        let classes = CrisisModel.classes.count
        let count = Double(rows.count)
        let lambda = 1 / (options.inverseRegularisation * count)
        var weights = [Double](repeating: 0, count: features * classes)
        var firstMoment = weights, secondMoment = weights
        let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-8)
        for step in 1...options.iterations {
            var gradient = [Double](repeating: 0, count: features * classes)
            for (row, label) in zip(rows, labels) {
                var logits = [Double](repeating: 0, count: classes)
                for (feature, value) in row {
                    for k in 0..<classes { logits[k] += weights[feature * classes + k] * value }
                }
                var probabilities = CrisisModel.softmax(logits)
                probabilities[label] -= 1
                for (feature, value) in row {
                    for k in 0..<classes { gradient[feature * classes + k] += probabilities[k] * value / count }
                }
            }
            for index in weights.indices {
                if index / classes != bias { gradient[index] += lambda * weights[index] }
                firstMoment[index] = beta1 * firstMoment[index] + (1 - beta1) * gradient[index]
                secondMoment[index] = beta2 * secondMoment[index] + (1 - beta2) * gradient[index] * gradient[index]
                let corrected = firstMoment[index] / (1 - pow(beta1, Double(step)))
                let scale = (secondMoment[index] / (1 - pow(beta2, Double(step)))).squareRoot() + epsilon
                weights[index] -= options.learningRate * corrected / scale
            }
        }
        return weights
    }
}
