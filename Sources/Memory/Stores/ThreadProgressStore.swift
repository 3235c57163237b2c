import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `memory_threads`: how far each thread's sessions are summarized. The chat turn's finish marks a turn
/// (`hearth_memory_note_turn`, migrations/0012_memory.sql); the summary job moves the watermarks.
struct ThreadProgressStore: Sendable {
    struct Progress: Sendable {
        let summarizedSeq: Int64
        let partialSeq: Int64
        let lastActivityAt: Date
        /// Seconds since the last turn, by the database's clock.
        let idleSeconds: Double
    }

    let logger: Logger

    /// The thread's progress; `lock` holds the row until the transaction ends (one summary write per thread at a time).
    func load(threadID: UUID, lock: Bool = false, on connection: PostgresConnection) async throws -> Progress? {
        let rows = try await connection.query(
            """
            SELECT summarized_seq, partial_seq, last_activity_at, extract(epoch FROM now() - last_activity_at)::float8
            FROM memory_threads WHERE thread_id = \(threadID) \(unescaped: lock ? "FOR UPDATE" : "")
            """,
            logger: logger
        )
        for try await (summarized, partial, last, idle) in rows.decode((Int64, Int64, Date, Double).self) {
            return Progress(summarizedSeq: summarized, partialSeq: partial, lastActivityAt: last, idleSeconds: idle)
        }
        return nil
    }

    /// Ensures a row exists (a session can be ended or summarized before any turn was noted, e.g. after a restore),
    /// unless the thread is gone: a summary queued before its thread was deleted then finds nothing to do.
    func ensure(tenantID: UUID, userID: UUID, threadID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO memory_threads (tenant_id, thread_id, user_id, open)
            SELECT \(tenantID), t.id, \(userID), true FROM threads t WHERE t.id = \(threadID)
            ON CONFLICT (thread_id) DO NOTHING
            """,
            logger: logger
        )
    }

    /// The session through `seq` has its summary; turns after it start the next one. A turn noted after the
    /// transcript was read (its last activity then was `activitySeen`) keeps the thread open: its session still needs a summary.
    func closeSession(threadID: UUID, through seq: Int64, activitySeen: Date, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE memory_threads SET summarized_seq = \(seq), partial_seq = \(seq), open = last_activity_at > \(activitySeen),
                                      unsummarized = CASE WHEN last_activity_at > \(activitySeen) THEN 2 ELSE 0 END
            WHERE thread_id = \(threadID)
            """,
            logger: logger
        )
    }

    /// The open session's older messages through `seq` have an in-session summary; `remaining` are not covered.
    func advancePartial(threadID: UUID, through seq: Int64, remaining: Int, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE memory_threads SET partial_seq = \(seq), unsummarized = \(remaining) WHERE thread_id = \(threadID)", logger: logger
        )
    }

    /// Nothing to summarize: the session is closed without a summary (unless a turn came after the activity seen).
    func markClosed(threadID: UUID, activitySeen: Date, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE memory_threads SET open = false, unsummarized = 0 WHERE thread_id = \(threadID) AND last_activity_at <= \(activitySeen)",
            logger: logger
        )
    }
}
