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

    /// The message read alone.
    public func assess(_ text: String) -> CrisisAssessment {
        assess(Tokens(text))
    }

    /// The message read with the conversation before it when its meaning hangs on it (``ConversationReading``):
    /// `conversation`, the person's recent messages and their session's summary, oldest first (empty: the message
    /// opens the conversation).
    public func assess(_ text: String, conversation: [String]) -> CrisisAssessment {
        reassess(text, alone: assess(text), conversation: conversation)
    }

    /// `alone`: the message's own reading, which stands unless it ``CrisisAssessment/readsConversation``. Only a flag
    /// the message's words raised can be cleared; the finding keeps the message's own signals.
    public func reassess(_ text: String, alone: CrisisAssessment, conversation: [String]) -> CrisisAssessment {
        guard alone.readsConversation else { return alone }
        let stands: Bool
        if !conversation.isEmpty {
            // Each earlier message its own sentence, so that no cue runs across two of them.
            stands = assess((conversation + [text]).map { $0 + "." }.joined(separator: "\n")).isCrisis
        } else {
            stands = !ConversationReading.isShort(Tokens(text)) || alone.score >= ConversationReading.shortAloneThreshold
        }
        return stands ? alone : alone.cleared()
    }

    private func assess(_ tokens: Tokens) -> CrisisAssessment {
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
        let isCrisis = score >= threshold
        return CrisisAssessment(kind: kind, score: score, isCrisis: isCrisis, signals: signals,
                                readsConversation: isCrisis && ConversationReading.needsConversation(tokens, signals: signals),
                                evidence: { model.evidence(CrisisFeatures.named(tokens, signals: signals), for: kind) })
    }
}
