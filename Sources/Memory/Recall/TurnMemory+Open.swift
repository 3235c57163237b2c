import Crypto
import Foundation

extension TurnMemory {
    /// Opens the memory rows of the chat turn's context read (`hearth_memory_context`, migrations/0012_memory.sql),
    /// in the order they came: facts by confidence, then summaries.
    public static func open(
        sessionKey: String,
        facts: [(id: UUID, category: String, mentions: Int, session: String?, domains: String?, insights: String?, sealed: Data)],
        summaries: [(id: UUID, kind: String, started: String?, domain: String?, sealed: Data)],
        key: SymmetricKey
    ) throws -> TurnMemory {
        TurnMemory(
            sessionKey: sessionKey,
            facts: try facts.map { row in
                RememberedFact(
                    id: row.id, category: FactCategory(rawValue: row.category) ?? .theme,
                    content: try Sealing.open(FactContent.self, row.sealed, key: key, column: Sealing.fact, id: row.id),
                    mentionCount: row.mentions, lastSessionKey: row.session,
                    domains: row.domains.map { $0.split(separator: ",").map(String.init) } ?? [],
                    insightKinds: Set((row.insights ?? "").split(separator: ",").compactMap { InsightKind(rawValue: String($0)) })
                )
            },
            summaries: try summaries.map { row in
                Summary(
                    id: row.id, kind: StoredSummary.Kind(rawValue: row.kind) ?? .session,
                    startedAt: Date(timeIntervalSince1970: row.started.flatMap(Double.init) ?? 0), domain: row.domain,
                    summary: try Sealing.open(SessionSummary.self, row.sealed, key: key, column: Sealing.summary, id: row.id)
                )
            }
        )
    }
}
