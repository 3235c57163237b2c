import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `persona_links` and `persona_link_starts` (migration 0017). Runs on connections scoped to the tenant.
struct LinkStore: Sendable {
    let logger: Logger

    /// A link row as the service reads it.
    struct Link: Sendable {
        let id: UUID
        let personaID: UUID
        let userID: UUID
        let kind: PersonaLinks.Kind
        let slug: String
        let createdAt: Date
        let revokedAt: Date?
    }

    static let columns = "id, persona_id, user_id, kind, slug, created_at, revoked_at"

    func link(slug: String, on connection: PostgresConnection) async throws -> Link? {
        try await links(connection.query("SELECT \(unescaped: Self.columns) FROM persona_links WHERE slug = \(slug)", logger: logger)).first
    }

    /// The person's live link to the persona, if they have one.
    func liveLink(personaID: UUID, userID: UUID, on connection: PostgresConnection) async throws -> Link? {
        try await links(connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM persona_links
            WHERE persona_id = \(personaID) AND user_id = \(userID) AND revoked_at IS NULL
            """,
            logger: logger
        )).first
    }

    func create(tenantID: UUID, personaID: UUID, userID: UUID, kind: PersonaLinks.Kind, on connection: PostgresConnection) async throws -> Link {
        try await links(connection.query(
            """
            INSERT INTO persona_links (id, tenant_id, persona_id, user_id, kind, slug)
            VALUES (\(RandomBytes.uuid()), \(tenantID), \(personaID), \(userID), \(kind.rawValue), \(Self.newSlug()))
            RETURNING \(unescaped: Self.columns)
            """,
            logger: logger
        )).first!
    }

    func revoke(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE persona_links SET revoked_at = now() WHERE id = \(id) AND revoked_at IS NULL", logger: logger)
    }

    func countClick(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE persona_links SET clicks = clicks + 1 WHERE id = \(id)", logger: logger)
    }

    func countAppOpen(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE persona_links SET app_opens = app_opens + 1 WHERE id = \(id)", logger: logger)
    }

    /// The thread the person started from this link before, if it still exists.
    func startedThread(linkID: UUID, userID: UUID, on connection: PostgresConnection) async throws -> UUID? {
        let rows = try await connection.query(
            "SELECT thread_id FROM persona_link_starts WHERE link_id = \(linkID) AND user_id = \(userID) AND thread_id IS NOT NULL",
            logger: logger
        )
        for try await thread in rows.decode(UUID.self) { return thread }
        return nil
    }

    func recordStart(tenantID: UUID, linkID: UUID, userID: UUID, threadID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO persona_link_starts (tenant_id, link_id, user_id, thread_id) VALUES (\(tenantID), \(linkID), \(userID), \(threadID))
            ON CONFLICT (link_id, user_id) DO UPDATE SET thread_id = excluded.thread_id
            """,
            logger: logger
        )
    }

    /// The persona's links (only `userID`'s when given), oldest first, each with what it led to. A start is a
    /// person who began a session from the link; a return is such a person who came back for another session
    /// with the persona: a message of theirs to it after at least `sessionGap` without one.
    func stats(personaID: UUID, userID: UUID?, sessionGap: Duration, on connection: PostgresConnection) async throws -> [(Link, PersonaLinks.Stats)] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns), clicks, app_opens,
                (SELECT count(*) FROM persona_link_starts s WHERE s.link_id = l.id)::bigint,
                (SELECT count(*) FROM persona_link_starts s WHERE s.link_id = l.id AND EXISTS (
                    SELECT 1 FROM (
                        SELECT m.created_at - lag(m.created_at) OVER (ORDER BY m.created_at, m.seq) AS gap
                        FROM messages m JOIN threads t ON t.id = m.thread_id
                        WHERE t.user_id = s.user_id AND t.persona_id = l.persona_id AND m.role = 'user' AND m.created_at >= s.started_at
                    ) g WHERE g.gap >= make_interval(secs => \(sessionGap.seconds))))::bigint
            FROM persona_links l
            WHERE l.persona_id = \(personaID) AND (\(userID)::uuid IS NULL OR l.user_id = \(userID))
            ORDER BY l.created_at, l.id
            """,
            logger: logger
        )
        var result: [(Link, PersonaLinks.Stats)] = []
        for try await (id, persona, user, kind, slug, created, revoked, clicks, opens, starts, returns)
            in rows.decode((UUID, UUID, UUID, String, String, Date, Date?, Int64, Int64, Int64, Int64).self) {
            result.append((Self.link((id, persona, user, kind, slug, created, revoked)),
                           PersonaLinks.Stats(clicks: Int(clicks), appOpens: Int(opens), starts: Int(starts), returns: Int(returns))))
        }
        return result
    }

    private func links(_ rows: PostgresRowSequence) async throws -> [Link] {
        var links: [Link] = []
        for try await row in rows.decode((UUID, UUID, UUID, String, String, Date, Date?).self) { links.append(Self.link(row)) }
        return links
    }

    /// A row of ``columns``.
    private static func link(_ row: (UUID, UUID, UUID, String, String, Date, Date?)) -> Link {
        Link(id: row.0, personaID: row.1, userID: row.2, kind: PersonaLinks.Kind(rawValue: row.3) ?? .share, slug: row.4, createdAt: row.5,
             revokedAt: row.6)
    }

    static let slugAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// 16 characters from 62 by the system's secure generator: about 95 bits, not guessable and not enumerable.
    static func newSlug() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in slugAlphabet.randomElement(using: &generator)! })
    }
}
