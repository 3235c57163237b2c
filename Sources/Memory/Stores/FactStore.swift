import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `memory_facts` (tier 3).
struct FactStore: Sendable {
    /// Where a mention came from.
    struct Mention: Sendable {
        let sessionKey: String
        let threadID: UUID
        let domain: String?
        let at: Date
    }

    /// Confidence of a fact seen once; each later session adds `step`, up to `ceiling` (the memory document's
    /// ExtractedFact). Facts the person wrote themselves are certain.
    static let initialConfidence = 0.5
    static let step = 0.1
    static let ceiling = 0.95

    let logger: Logger

    static let columns = """
        id, category, fact_ciphertext, confidence, mention_count, source_thread_ids, domains, origin, active,
        first_mentioned_at, last_mentioned_at, valid_from, valid_until, superseded_by
        """

    /// Facts in the prompt and given to the extractor: active ones, most confident first.
    func active(userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> [StoredFact] {
        try await facts(
            "SELECT \(unescaped: Self.columns) FROM memory_facts WHERE user_id = \(userID) AND active ORDER BY confidence DESC, last_mentioned_at DESC LIMIT 200",
            key: key, on: connection
        )
    }

    /// Everything, for the person: by category, then oldest first; superseded and paused facts included on request.
    func list(userID: UUID, category: FactCategory?, includeInactive: Bool, key: SymmetricKey, on connection: PostgresConnection) async throws -> [StoredFact] {
        try await facts(
            """
            SELECT \(unescaped: Self.columns) FROM memory_facts
            WHERE user_id = \(userID) AND (\(category?.rawValue)::text IS NULL OR category = \(category?.rawValue)) AND (\(includeInactive) OR active)
            ORDER BY category, created_at, id
            """,
            key: key, on: connection
        )
    }

    func find(_ id: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> StoredFact? {
        try await facts("SELECT \(unescaped: Self.columns) FROM memory_facts WHERE id = \(id) AND user_id = \(userID) FOR UPDATE", key: key, on: connection).first
    }

    /// A new fact; returns its id.
    @discardableResult
    func add(_ category: FactCategory, _ content: FactContent, origin: StoredFact.Origin, mention: Mention?, tenantID: UUID, userID: UUID,
             key: SymmetricKey, on connection: PostgresConnection) async throws -> UUID {
        let id = RandomBytes.uuid()
        let sealed = try Sealing.seal(content, key: key, column: Sealing.fact, id: id)
        let confidence = origin == .user ? 1.0 : Self.initialConfidence
        let threads = mention.map { [$0.threadID] } ?? []
        let domains = mention?.domain.map { [$0] } ?? []
        let at = mention?.at ?? Date()
        try await connection.query(
            """
            INSERT INTO memory_facts (id, tenant_id, user_id, category, fact_ciphertext, confidence, source_thread_ids, last_session_key,
                                      domains, origin, first_mentioned_at, last_mentioned_at)
            VALUES (\(id), \(tenantID), \(userID), \(category.rawValue), \(sealed), \(confidence), \(threads), \(mention?.sessionKey),
                    \(domains), \(origin.rawValue), \(at), \(at))
            """,
            logger: logger
        )
        return id
    }

    /// The fact came up again: once per session, it gains a mention and confidence, and the session's thread
    /// and domain join its sources.
    func repeated(_ id: UUID, mention: Mention, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE memory_facts SET
                mention_count = mention_count + 1,
                confidence = least(\(Self.ceiling), greatest(confidence, confidence + \(Self.step))),
                source_thread_ids = CASE WHEN \(mention.threadID) = ANY(source_thread_ids) THEN source_thread_ids
                                         ELSE source_thread_ids || \(mention.threadID) END,
                domains = CASE WHEN \(mention.domain)::text IS NULL OR \(mention.domain) = ANY(domains) THEN domains
                               ELSE domains || \(mention.domain)::text END,
                last_session_key = \(mention.sessionKey), last_mentioned_at = \(mention.at), updated_at = now()
            WHERE id = \(id) AND last_session_key IS DISTINCT FROM \(mention.sessionKey)
            """,
            logger: logger
        )
    }

    /// `old` is no longer true: it ends now and points to its replacement (kept, not overwritten).
    func supersede(_ old: UUID, by new: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE memory_facts SET active = false, valid_until = now(), superseded_by = \(new), updated_at = now()
            WHERE id = \(old)
            """,
            logger: logger
        )
    }

    /// The person's own edit: their words become the fact (certain from now on).
    func edit(_ id: UUID, category: FactCategory, content: FactContent, active: Bool, key: SymmetricKey, on connection: PostgresConnection) async throws {
        let sealed = try Sealing.seal(content, key: key, column: Sealing.fact, id: id)
        try await connection.query(
            """
            UPDATE memory_facts SET category = \(category.rawValue), fact_ciphertext = \(sealed), active = \(active),
                                    origin = 'user', confidence = 1.0, updated_at = now()
            WHERE id = \(id)
            """,
            logger: logger
        )
    }

    func delete(_ id: UUID, userID: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("DELETE FROM memory_facts WHERE id = \(id) AND user_id = \(userID) RETURNING 1", logger: logger)
        return try await rows.collect().count == 1
    }

    /// Deletes a category's facts, or all of them; returns how many.
    func deleteAll(userID: UUID, category: FactCategory?, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            """
            DELETE FROM memory_facts WHERE user_id = \(userID) AND (\(category?.rawValue)::text IS NULL OR category = \(category?.rawValue))
            RETURNING 1
            """,
            logger: logger
        )
        return try await rows.collect().count
    }

    private func facts(_ query: PostgresQuery, key: SymmetricKey, on connection: PostgresConnection) async throws -> [StoredFact] {
        let rows = try await connection.query(query, logger: logger)
        var facts: [StoredFact] = []
        for try await (id, category, sealed, confidence, mentions, threads, domains, origin, active, first, last, from, until, successor)
            in rows.decode((UUID, String, Data, Float, Int, [UUID], [String], String, Bool, Date, Date, Date, Date?, UUID?).self) {
            facts.append(StoredFact(
                id: id, category: FactCategory(rawValue: category) ?? .theme,
                content: try Sealing.open(FactContent.self, sealed, key: key, column: Sealing.fact, id: id),
                confidence: (Double(confidence) * 100).rounded() / 100, mentionCount: mentions, sourceThreadIDs: threads, domains: domains,
                origin: StoredFact.Origin(rawValue: origin) ?? .extracted, active: active, firstMentionedAt: first, lastMentionedAt: last,
                validFrom: from, validUntil: until, supersededBy: successor
            ))
        }
        return facts
    }
}
