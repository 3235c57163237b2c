import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// An insight as the memory API lists it.
public struct StoredInsight: Codable, Sendable, Equatable {
    public let id: UUID
    public let kind: InsightKind
    public let factID: UUID
    public let text: String
    public let occurrences: Int
    public let domains: [String]
    public let threadID: UUID?
    public let messageID: UUID?
    public let createdAt: Date
}

/// Owns `memory_insights`: each fact gives at most one insight of each kind, ever.
struct InsightStore: Sendable {
    let logger: Logger

    /// Records an insight about to be shown; false when one of its kind was already drawn from the fact
    /// (another turn got there first), in which case it is not shown again.
    func record(_ insight: Insight, tenantID: UUID, userID: UUID, threadID: UUID, messageID: UUID, key: SymmetricKey,
                on connection: PostgresConnection) async throws -> Bool {
        let id = RandomBytes.uuid()
        let sealed = try Sealing.seal(insight.text, key: key, column: Sealing.insight, id: id)
        let rows = try await connection.query(
            """
            INSERT INTO memory_insights (id, tenant_id, user_id, fact_id, kind, thread_id, message_id, occurrences, domains, text_ciphertext)
            VALUES (\(id), \(tenantID), \(userID), \(insight.factID), \(insight.kind.rawValue), \(threadID), \(messageID),
                    \(insight.occurrences), \(insight.domains), \(sealed))
            ON CONFLICT (tenant_id, fact_id, kind) DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    func list(userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> [StoredInsight] {
        let rows = try await connection.query(
            """
            SELECT id, kind, fact_id, text_ciphertext, occurrences, domains, thread_id, message_id, created_at
            FROM memory_insights WHERE user_id = \(userID) ORDER BY created_at DESC, id
            """,
            logger: logger
        )
        var insights: [StoredInsight] = []
        for try await (id, kind, fact, sealed, occurrences, domains, thread, message, created)
            in rows.decode((UUID, String, UUID, Data, Int, [String], UUID?, UUID?, Date).self) {
            insights.append(StoredInsight(
                id: id, kind: InsightKind(rawValue: kind) ?? .pattern, factID: fact,
                text: try Sealing.open(String.self, sealed, key: key, column: Sealing.insight, id: id),
                occurrences: occurrences, domains: domains, threadID: thread, messageID: message, createdAt: created
            ))
        }
        return insights
    }
}
