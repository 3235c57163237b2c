/// Trains ``ModerationModel`` from labelled personas (`hearth train moderation`, docs/safety.md) with
/// ``LinearTrainer``: deterministic, the same files give the same weights.
public struct ModerationModelTrainer: Sendable {
    public struct Example: Sendable {
        public let fields: [(name: String, text: String)]
        /// nil: a persona to approve.
        public let concern: ModerationConcern?

        public init(fields: [(name: String, text: String)], concern: ModerationConcern?) {
            self.fields = fields
            self.concern = concern
        }
    }

    public struct Options: Sendable {
        public var fit = LinearFit()
        /// The probability of "not approve" from which a persona is flagged: chosen on the two development sets
        /// pooled (recall 0.96 at 0.06 false rejects there, docs/safety.md).
        public var threshold = 0.3

        public init() {}
    }

    public init() {}

    public func train(_ examples: [Example], options: Options = .init()) -> ModerationModel {
        let features = examples.map { PersonaScreening.read($0.fields).features }
        let labels = examples.map { example in ModerationModel.classes.firstIndex(of: example.concern)! }
        let linear = LinearTrainer.train(features, labels: labels, classCount: ModerationModel.classes.count, options: options.fit)
        return ModerationModel(linear: linear, threshold: options.threshold)
    }
}
