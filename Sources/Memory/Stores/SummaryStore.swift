import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import PostgresNIO

/// Owns `memory_summaries` (tier 2).
struct SummaryStore: Sendable {
    struct New: Sendable {
        let tenantID: UUID
        let userID: UUID
        let threadID: UUID
        let kind: StoredSummary.Kind
        let sessionKey: String
        let fromSeq: Int64
        let throughSeq: Int64
        let domain: String?
        let startedAt: Date
        let endedAt: Date
    }

    let logger: Logger

    /// Stores a summary; returns its id.
    func insert(_ summary: SessionSummary, _ new: New, key: SymmetricKey, on connection: PostgresConnection) async throws -> UUID {
        let id = RandomBytes.uuid()
        let sealed = try Sealing.seal(summary, key: key, column: Sealing.summary, id: id)
        let tokens = TokenEstimate.count(summary.text)
        try await connection.query(
            """
            INSERT INTO memory_summaries (id, tenant_id, user_id, thread_id, kind, session_key, from_seq, through_seq, domain,
                                          summary_ciphertext, token_count, session_started_at, session_ended_at)
            VALUES (\(id), \(new.tenantID), \(new.userID), \(new.threadID), \(new.kind.rawValue), \(new.sessionKey), \(new.fromSeq),
                    \(new.throughSeq), \(new.domain), \(sealed), \(tokens), \(new.startedAt), \(new.endedAt))
            """,
            logger: logger
        )
        return id
    }

    /// Drops the in-session summaries of a session once its whole summary exists.
    func deletePartials(threadID: UUID, sessionKey: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "DELETE FROM memory_summaries WHERE thread_id = \(threadID) AND kind = 'partial' AND session_key = \(sessionKey)", logger: logger
        )
    }

    /// What fact extraction needs of a summary.
    struct Source: Sendable {
        let threadID: UUID
        let sessionKey: String
        let fromSeq: Int64
        let throughSeq: Int64
        let domain: String?
        let endedAt: Date
        let summary: SessionSummary
    }

    func source(_ id: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> Source? {
        let rows = try await connection.query(
            """
            SELECT thread_id, session_key, from_seq, through_seq, domain, session_ended_at, summary_ciphertext
            FROM memory_summaries WHERE id = \(id) AND user_id = \(userID)
            """,
            logger: logger
        )
        for try await (thread, session, from, through, domain, ended, sealed) in rows.decode((UUID, String, Int64, Int64, String?, Date, Data).self) {
            return Source(threadID: thread, sessionKey: session, fromSeq: from, throughSeq: through, domain: domain, endedAt: ended,
                          summary: try Sealing.open(SessionSummary.self, sealed, key: key, column: Sealing.summary, id: id))
        }
        return nil
    }

    func list(userID: UUID, includeArchived: Bool, key: SymmetricKey, on connection: PostgresConnection) async throws -> [StoredSummary] {
        let rows = try await connection.query(
            """
            SELECT id, thread_id, kind, domain, summary_ciphertext, token_count, session_started_at, session_ended_at,
                   archived_at IS NOT NULL, created_at
            FROM memory_summaries WHERE user_id = \(userID) AND (\(includeArchived) OR archived_at IS NULL)
            ORDER BY session_ended_at DESC, id
            """,
            logger: logger
        )
        var summaries: [StoredSummary] = []
        for try await (id, thread, kind, domain, sealed, tokens, started, ended, archived, created)
            in rows.decode((UUID, UUID, String, String?, Data, Int, Date, Date, Bool, Date).self) {
            summaries.append(StoredSummary(
                id: id, threadID: thread, kind: StoredSummary.Kind(rawValue: kind) ?? .session, domain: domain,
                summary: try Sealing.open(SessionSummary.self, sealed, key: key, column: Sealing.summary, id: id),
                tokenCount: tokens, sessionStartedAt: started, sessionEndedAt: ended, timeOfDay: StoredSummary.timeOfDay(started),
                archived: archived, createdAt: created
            ))
        }
        return summaries
    }

    func delete(_ id: UUID, userID: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("DELETE FROM memory_summaries WHERE id = \(id) AND user_id = \(userID) RETURNING 1", logger: logger)
        return try await rows.collect().count == 1
    }

    /// Returns how many.
    func deleteAll(userID: UUID, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("DELETE FROM memory_summaries WHERE user_id = \(userID) RETURNING 1", logger: logger)
        return try await rows.collect().count
    }
}
