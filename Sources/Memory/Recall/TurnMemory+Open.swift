import Crypto
import Foundation

extension TurnMemory {
    /// One row of the chat turn's context read, in its columns (`hearth_turn_reading`, migration 0030); Memory's are those of
    /// `hearth_memory_context` (migrations/0012_memory.sql), whose comment maps each kind's columns.
    public struct Row: Sendable {
        public let kind: String
        public let id: UUID?
        public let number: Int?
        public let name: String?
        public let model: String?
        public let url: String?
        public let reference: String?
        public let sealed: Data?

        public init(kind: String, id: UUID?, number: Int?, name: String?, model: String?, url: String?, reference: String?, sealed: Data?) {
            (self.kind, self.id, self.number, self.name, self.model, self.url, self.reference, self.sealed) = (kind, id, number, name, model, url, reference, sealed)
        }
    }

    /// The row kinds Memory reads.
    public static let rowKinds: Set<String> = ["session", "fact", "summary"]

    /// Opens Memory's rows of a turn's context read, in the order they came: facts by confidence, then summaries.
    public static func open(threadID: UUID, rows: [Row], key: SymmetricKey) throws -> TurnMemory {
        var memory = TurnMemory(sessionKey: SessionKey.make(threadID: threadID, summarizedSeq: 0))
        for row in rows {
            switch (row.kind, row.id, row.name, row.sealed) {
            case ("session", _, let seq?, _):
                memory.sessionKey = SessionKey.make(threadID: threadID, summarizedSeq: Int64(seq) ?? 0)
            case ("fact", let id?, let category?, let sealed?):
                memory.facts.append(RememberedFact(
                    id: id, category: FactCategory(rawValue: category) ?? .theme,
                    content: try Sealing.open(FactContent.self, sealed, key: key, column: Sealing.fact, id: id),
                    mentionCount: row.number ?? 1, lastSessionKey: row.model,
                    domains: row.url.map { $0.split(separator: ",").map(String.init) } ?? [],
                    insightKinds: Set((row.reference ?? "").split(separator: ",").compactMap { InsightKind(rawValue: String($0)) })
                ))
            case ("summary", let id?, let kind?, let sealed?):
                memory.summaries.append(Summary(
                    id: id, kind: StoredSummary.Kind(rawValue: kind) ?? .session,
                    startedAt: Date(timeIntervalSince1970: row.model.flatMap(Double.init) ?? 0), domain: row.url,
                    summary: try Sealing.open(SessionSummary.self, sealed, key: key, column: Sealing.summary, id: id)
                ))
            default:
                continue
            }
        }
        return memory
    }
}
