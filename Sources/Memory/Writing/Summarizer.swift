/// Writes a session's summary (tier 2). Two implementations: ``ModelSummarizer`` (the tenant's LLM, structured
/// JSON) and ``OfflineSummarizer`` (deterministic, no model).
public protocol SessionSummarizer: Sendable {
    func summarize(_ transcript: Transcript) async throws -> SessionSummary
}

/// Extracts long-term facts (tier 3) from a summarized session, given what is already known. Known facts are
/// numbered from 1 (small integers, never database ids); a change refers to them by that number.
public protocol FactExtractor: Sendable {
    func extract(from transcript: Transcript, summary: SessionSummary, known: [FactExtraction.Known]) async throws -> [FactExtraction.Change]
}

public enum FactExtraction {
    public struct Known: Sendable, Equatable {
        /// 1-based.
        public let number: Int
        public let category: FactCategory
        public let content: FactContent
    }

    public enum Change: Sendable, Equatable {
        /// Something new.
        case add(FactCategory, FactContent)
        /// A known fact came up again.
        case repeated(Int)
        /// A known fact is no longer true; this replaces it.
        case contradicted(Int, FactCategory, FactContent)
    }
}
