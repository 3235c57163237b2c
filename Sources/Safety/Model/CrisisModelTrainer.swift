import Foundation

/// Trains ``CrisisModel`` from labelled messages (`hearth train crisis`, docs/safety.md) with ``LinearTrainer``:
/// deterministic, the same files give the same weights.
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
        let features = examples.map { CrisisFeatures.read($0.text, rules: rules).features }
        let labels = examples.map { example in CrisisModel.classes.firstIndex(of: example.kind)! }
        let linear = LinearTrainer.train(features, labels: labels, classCount: CrisisModel.classes.count, options: .init(
            inverseRegularisation: options.inverseRegularisation, minimumCount: options.minimumCount,
            iterations: options.iterations, learningRate: options.learningRate
        ))
        return CrisisModel(linear: linear, threshold: options.threshold, wordsOnlyThreshold: options.wordsOnlyThreshold)
    }
}
