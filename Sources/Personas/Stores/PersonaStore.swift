import Foundation
import HearthPlatform
import Logging
import PostgresNIO
import Safety

/// Owns `personas`, `persona_avatars`, `persona_reviews` and `persona_settings` (migration 0015). Runs on connections scoped to the
/// tenant; creator queries also name the creator, so one user never reaches another's persona.
struct PersonaStore: Sendable {
    let logger: Logger

    /// The columns ``view(_:)`` reads, in order.
    static let columns = """
        id, status, revision, draft::text, published::text, published_revision, published_at, screening::text, review_note,
        draft_avatar_id IS NOT NULL, created_at, updated_at
        """

    func create(tenantID: UUID, creatorID: UUID, content: PersonaContent, on connection: PostgresConnection) async throws -> PersonaView {
        let rows = try await connection.query(
            """
            INSERT INTO personas (id, tenant_id, creator_id, status, draft)
            VALUES (\(RandomBytes.uuid()), \(tenantID), \(creatorID), 'draft', \(try Self.json(content))::jsonb)
            RETURNING \(unescaped: Self.columns)
            """,
            logger: logger
        )
        return try await Self.views(rows).first!
    }

    func count(creatorID: UUID, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("SELECT count(*)::int FROM personas WHERE creator_id = \(creatorID)", logger: logger)
        return try await rows.collect().first!.decode(Int.self)
    }

    /// A persona of the tenant (`creatorID`: only if that user created it), locked for the rest of the transaction
    /// when `forUpdate`.
    func find(_ id: UUID, creatorID: UUID? = nil, forUpdate: Bool = false, on connection: PostgresConnection) async throws -> PersonaView? {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM personas
            WHERE id = \(id) AND (\(creatorID)::uuid IS NULL OR creator_id = \(creatorID)) \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """,
            logger: logger
        )
        return try await Self.views(rows).first
    }

    /// What the public sees of a live persona (approved and not suspended).
    struct Published: Sendable {
        let content: PersonaContent
        let revision: Int
        let hasAvatar: Bool
    }

    func published(_ id: UUID, on connection: PostgresConnection) async throws -> Published? {
        let rows = try await connection.query(
            """
            SELECT published::text, published_revision, published_avatar_id IS NOT NULL FROM personas
            WHERE id = \(id) AND published IS NOT NULL AND status <> 'suspended'
            """,
            logger: logger
        )
        for try await (json, revision, hasAvatar) in rows.decode((String, Int, Bool).self) {
            return Published(content: try Self.decode(PersonaContent.self, json), revision: revision, hasAvatar: hasAvatar)
        }
        return nil
    }

    /// Who created a persona of the tenant, and whether it is live (approved and not suspended).
    func creator(of id: UUID, on connection: PostgresConnection) async throws -> (creatorID: UUID, isLive: Bool)? {
        let rows = try await connection.query(
            "SELECT creator_id, published IS NOT NULL AND status <> 'suspended' FROM personas WHERE id = \(id)", logger: logger
        )
        for try await (creatorID, isLive) in rows.decode((UUID, Bool).self) { return (creatorID, isLive) }
        return nil
    }

    /// The creator's personas, newest first.
    func list(creatorID: UUID, on connection: PostgresConnection) async throws -> [PersonaView] {
        let rows = try await connection.query(
            "SELECT \(unescaped: Self.columns) FROM personas WHERE creator_id = \(creatorID) ORDER BY created_at DESC, id",
            logger: logger
        )
        return try await Self.views(rows)
    }

    /// The moderation queue, oldest submission first.
    func queue(limit: Int, on connection: PostgresConnection) async throws -> [PersonaView] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM personas WHERE status = 'submitted'
            ORDER BY submitted_at, id LIMIT \(limit)
            """,
            logger: logger
        )
        return try await Self.views(rows)
    }

    /// A new working copy: the revision moves on and the persona is a draft again (its published copy, if any,
    /// stays live until the edit is approved). A changed avatar drops the one neither copy shows any more.
    func edit(_ id: UUID, content: PersonaContent?, avatarID: UUID??, on connection: PostgresConnection) async throws -> PersonaView {
        let rows = try await connection.query(
            """
            UPDATE personas SET draft = coalesce(\(try content.map(Self.json))::jsonb, draft),
                draft_avatar_id = CASE WHEN \(avatarID != nil) THEN \(avatarID ?? nil) ELSE draft_avatar_id END,
                revision = revision + 1, status = 'draft', submitted_at = NULL, updated_at = now()
            WHERE id = \(id)
            RETURNING \(unescaped: Self.columns)
            """,
            logger: logger
        )
        let edited = try await Self.views(rows).first!
        if avatarID != nil { try await pruneAvatars(personaID: id, on: connection) }
        return edited
    }

    /// Where a persona's review moves: queued, approved (its working copy published), rejected, suspended.
    enum Transition {
        case submit(PersonaScreening.Result)
        case approve(PersonaScreening.Result?)
        case reject(note: String)
        case suspend(note: String)
        case reinstate
    }

    /// Approving publishes the working copy's avatar and drops the one only the old published copy showed.
    func apply(_ transition: Transition, to id: UUID, on connection: PostgresConnection) async throws -> PersonaView {
        let rows: PostgresRowSequence
        switch transition {
        case .submit(let screening):
            rows = try await connection.query(
                """
                UPDATE personas SET status = 'submitted', submitted_at = now(), screening = \(try Self.json(screening))::jsonb,
                    review_note = NULL, updated_at = now()
                WHERE id = \(id) RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
        case .approve(let screening):
            rows = try await connection.query(
                """
                UPDATE personas SET status = 'approved', submitted_at = NULL, review_note = NULL,
                    screening = coalesce(\(try screening.map(Self.json))::jsonb, screening),
                    published = draft, published_avatar_id = draft_avatar_id, published_revision = revision, published_at = now(),
                    updated_at = now()
                WHERE id = \(id) RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
        case .reject(let note), .suspend(let note):
            let status: PersonaStatus = if case .reject = transition { .rejected } else { .suspended }
            rows = try await connection.query(
                """
                UPDATE personas SET status = \(status.rawValue), submitted_at = NULL, review_note = \(note), updated_at = now()
                WHERE id = \(id) RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
        case .reinstate:
            rows = try await connection.query(
                """
                UPDATE personas SET status = CASE WHEN published_revision = revision THEN 'approved' ELSE 'draft' END,
                    review_note = NULL, updated_at = now()
                WHERE id = \(id) RETURNING \(unescaped: Self.columns)
                """,
                logger: logger
            )
        }
        let moved = try await Self.views(rows).first!
        if case .approve = transition { try await pruneAvatars(personaID: id, on: connection) }
        return moved
    }

    func delete(_ id: UUID, creatorID: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("DELETE FROM personas WHERE id = \(id) AND creator_id = \(creatorID) RETURNING 1", logger: logger)
        return try await rows.collect().count == 1
    }

    // MARK: Avatars

    func addAvatar(_ image: AvatarImage, tenantID: UUID, personaID: UUID, on connection: PostgresConnection) async throws -> UUID {
        let id = RandomBytes.uuid()
        try await connection.query(
            """
            INSERT INTO persona_avatars (id, tenant_id, persona_id, content_type, width, height, bytes)
            VALUES (\(id), \(tenantID), \(personaID), \(image.kind.rawValue), \(image.width), \(image.height), \(Data(image.bytes)))
            """,
            logger: logger
        )
        return id
    }

    /// Avatars neither copy shows any more.
    private func pruneAvatars(personaID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            DELETE FROM persona_avatars a USING personas p
            WHERE a.persona_id = \(personaID) AND p.id = a.persona_id
              AND a.id IS DISTINCT FROM p.draft_avatar_id AND a.id IS DISTINCT FROM p.published_avatar_id
            """,
            logger: logger
        )
    }

    /// The working copy's avatar (`published`: the published copy's); `creatorID`: only of that user's persona.
    func avatar(personaID: UUID, published: Bool, creatorID: UUID? = nil, on connection: PostgresConnection) async throws -> AvatarImage? {
        let rows = try await connection.query(
            """
            SELECT a.content_type, a.width, a.height, a.bytes FROM personas p
            JOIN persona_avatars a ON a.id = CASE WHEN \(published) THEN p.published_avatar_id ELSE p.draft_avatar_id END
            WHERE p.id = \(personaID) AND (\(creatorID)::uuid IS NULL OR p.creator_id = \(creatorID))
            """,
            logger: logger
        )
        for try await (type, width, height, bytes) in rows.decode((String, Int, Int, Data).self) {
            guard let kind = AvatarImage.Kind(rawValue: type) else { return nil }
            return AvatarImage(kind: kind, width: width, height: height, bytes: [UInt8](bytes))
        }
        return nil
    }

    // MARK: Settings

    func setReviewPolicy(_ policy: Personas.ReviewPolicy, tenantID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO persona_settings (tenant_id, review) VALUES (\(tenantID), \(policy.rawValue))
            ON CONFLICT (tenant_id) DO UPDATE SET review = excluded.review, updated_at = now()
            """,
            logger: logger
        )
    }

    /// The tenant's policy; `flagged` when it has set none.
    func reviewPolicy(on connection: PostgresConnection) async throws -> Personas.ReviewPolicy {
        let rows = try await connection.query("SELECT review FROM persona_settings", logger: logger)
        for try await review in rows.decode(String.self) { return Personas.ReviewPolicy(rawValue: review) ?? .flagged }
        return .flagged
    }

    // MARK: History

    func record(_ entry: PersonaReview.Entry, personaID: UUID, tenantID: UUID, revision: Int, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO persona_reviews (tenant_id, persona_id, revision, action, actor, operator_id, operator_email, note, screening)
            VALUES (\(tenantID), \(personaID), \(revision), \(entry.action.rawValue), \(entry.actor.rawValue), \(entry.moderator?.id),
                    \(entry.moderator?.email), \(entry.note), \(try entry.screening.map(Self.json))::jsonb)
            """,
            logger: logger
        )
    }

    func history(personaID: UUID, on connection: PostgresConnection) async throws -> [PersonaReview] {
        let rows = try await connection.query(
            """
            SELECT revision, action, actor, operator_email, note, screening::text, created_at FROM persona_reviews
            WHERE persona_id = \(personaID) ORDER BY id
            """,
            logger: logger
        )
        var reviews: [PersonaReview] = []
        for try await (revision, action, actor, email, note, screening, at) in rows.decode((Int, String, String, String?, String?, String?, Date).self) {
            reviews.append(PersonaReview(
                revision: revision, action: PersonaReview.Action(rawValue: action) ?? .submitted, actor: PersonaReview.Actor(rawValue: actor) ?? .creator,
                operatorEmail: email, note: note, screening: try screening.map { try Self.decode(PersonaView.Screening.self, $0) }, at: at
            ))
        }
        return reviews
    }

    // MARK: Rows

    static func views(_ rows: PostgresRowSequence) async throws -> [PersonaView] {
        var views: [PersonaView] = []
        for try await row in rows {
            let (id, status, revision, draft, published, publishedRevision, publishedAt, screening, note, hasAvatar, created, updated) =
                try row.decode((UUID, String, Int, String, String?, Int?, Date?, String?, String?, Bool, Date, Date).self)
            views.append(PersonaView(
                id: id, status: PersonaStatus(rawValue: status) ?? .draft, revision: revision,
                draft: try decode(PersonaContent.self, draft), published: try published.map { try decode(PersonaContent.self, $0) },
                publishedRevision: publishedRevision, publishedAt: publishedAt,
                screening: try screening.map { try decode(PersonaView.Screening.self, $0) }, reviewNote: note, hasAvatar: hasAvatar,
                createdAt: created, updatedAt: updated
            ))
        }
        return views
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
