/// The crisis check every user message passes before the provider is called (FR16). Two signals you can read:
///
/// 1. ``CrisisRules`` — phrase cues for each kind, weakened by negation, distant past, fiction and study,
///    quotation, figurative speech and laughter, moved to a third party when someone else is the subject;
/// 2. ``CrisisModel`` — a linear model over what the rules found and the words of the message, trained on the
///    labelled sets, which makes the decision: it learns how far to trust each cue and catches the indirect
///    phrasing no cue names ("I've written letters to everyone").
///
/// Pure: about 35 µs for the load generator's two-sentence message in a release build (docs/safety.md).
public struct CrisisDetector: Sendable {
    let rules: CrisisRules
    let model: CrisisModel

    public init(model: CrisisModel = .shipped) {
        rules = CrisisRules()
        self.model = model
    }

    public func assess(_ text: String) -> CrisisAssessment {
        let tokens = Tokens(text)
        guard !tokens.tokens.isEmpty else { return .none }
        let signals = rules.read(tokens)
        // Scored by hash (``HashedFeatures``); the evidence, which names features, reads them again by name.
        var features = HashedFeatures()
        CrisisFeatures.extract(tokens, signals: signals, into: &features)
        let probabilities = model.probabilities(features)
        let kinds = probabilities.indices.dropFirst()
        let best = kinds.max { probabilities[$0] < probabilities[$1] } ?? 1
        let kind = CrisisModel.classes[best]!
        let score = 1 - probabilities[0]
        let threshold = signals.isEmpty ? model.wordsOnlyThreshold : model.threshold
        return CrisisAssessment(kind: kind, score: score, isCrisis: score >= threshold, signals: signals,
                                evidence: { model.evidence(CrisisFeatures.named(tokens, signals: signals), for: kind) })
    }
}
