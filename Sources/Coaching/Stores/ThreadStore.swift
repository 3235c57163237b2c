import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `threads`. Runs on connections scoped to the tenant; every query also names the user, so one user
/// never reaches another's thread (it is simply not found).
struct ThreadStore: Sendable {
    let logger: Logger

    static func titleContext(_ id: UUID) -> String { "threads.title:\(id.uuidString.lowercased())" }

    func create(tenantID: UUID, userID: UUID, sessionType: SessionType, domain: String?, personaID: UUID?, title: String?, key: SymmetricKey,
                on connection: PostgresConnection) async throws -> ThreadView {
        let id = RandomBytes.uuid()
        let sealed = try title.map { Data(try FieldCipher.seal($0, key: key, context: Self.titleContext(id))) }
        let rows = try await connection.query(
            """
            INSERT INTO threads (id, tenant_id, user_id, session_type, domain, domain_pinned, persona_id, title_ciphertext)
            VALUES (\(id), \(tenantID), \(userID), \(sessionType.rawValue), \(domain), \(domain != nil), \(personaID), \(sealed))
            RETURNING created_at, updated_at
            """,
            logger: logger
        )
        let (created, updated) = try await rows.collect().first!.decode((Date, Date).self)
        return ThreadView(id: id, title: title, sessionType: sessionType, domain: domain, personaID: personaID, createdAt: created, updatedAt: updated)
    }

    /// Most recently active first; `before` is the cursor (an epoch-microsecond position of updated_at).
    func list(userID: UUID, limit: Int, before: Cursor?, key: SymmetricKey, on connection: PostgresConnection) async throws -> ThreadList {
        let rows = try await connection.query(
            """
            SELECT id, session_type, domain, persona_id, title_ciphertext, created_at, updated_at,
                   (extract(epoch FROM updated_at) * 1000000)::bigint
            FROM threads
            WHERE user_id = \(userID)
              AND (\(before?.position)::bigint IS NULL OR (extract(epoch FROM updated_at) * 1000000)::bigint < \(before?.position))
            ORDER BY updated_at DESC, id DESC
            LIMIT \(limit + 1)
            """,
            logger: logger
        )
        var threads: [ThreadView] = []
        var positions: [Int64] = []
        for try await (id, type, domain, persona, title, created, updated, position) in rows.decode((UUID, String, String?, UUID?, Data?, Date, Date, Int64).self) {
            threads.append(try view(id: id, type: type, domain: domain, personaID: persona, title: title, created: created, updated: updated, key: key))
            positions.append(position)
        }
        let more = threads.count > limit
        return ThreadList(threads: Array(threads.prefix(limit)), nextCursor: more ? Cursor(position: positions[limit - 1]).string : nil)
    }

    func get(_ id: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> ThreadView? {
        let rows = try await connection.query(
            """
            SELECT id, session_type, domain, persona_id, title_ciphertext, created_at, updated_at FROM threads
            WHERE id = \(id) AND user_id = \(userID)
            """,
            logger: logger
        )
        for try await (id, type, domain, persona, title, created, updated) in rows.decode((UUID, String, String?, UUID?, Data?, Date, Date).self) {
            return try view(id: id, type: type, domain: domain, personaID: persona, title: title, created: created, updated: updated, key: key)
        }
        return nil
    }

    /// The thread's coaching domain; `nil` for no such thread, `.some(nil)` for a thread without one.
    func domain(of id: UUID, userID: UUID, on connection: PostgresConnection) async throws -> String?? {
        let rows = try await connection.query("SELECT domain FROM threads WHERE id = \(id) AND user_id = \(userID)", logger: logger)
        for try await domain in rows.decode(String?.self) { return .some(domain) }
        return nil
    }

    func rename(_ id: UUID, userID: UUID, title: String?, key: SymmetricKey, on connection: PostgresConnection) async throws -> Bool {
        let sealed = try title.map { Data(try FieldCipher.seal($0, key: key, context: Self.titleContext(id))) }
        let rows = try await connection.query(
            "UPDATE threads SET title_ciphertext = \(sealed), updated_at = now() WHERE id = \(id) AND user_id = \(userID) RETURNING 1",
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    func delete(_ id: UUID, userID: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("DELETE FROM threads WHERE id = \(id) AND user_id = \(userID) RETURNING 1", logger: logger)
        return try await rows.collect().count == 1
    }

    func deleteAll(userID: UUID, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("DELETE FROM threads WHERE user_id = \(userID) RETURNING 1", logger: logger)
        return try await rows.collect().count
    }

    private func view(id: UUID, type: String, domain: String?, personaID: UUID?, title: Data?, created: Date, updated: Date,
                      key: SymmetricKey) throws -> ThreadView {
        ThreadView(
            id: id,
            title: try title.map { try FieldCipher.open(Array($0), key: key, context: Self.titleContext(id)) },
            sessionType: SessionType(rawValue: type) ?? .freeform,
            domain: domain,
            personaID: personaID,
            createdAt: created,
            updatedAt: updated
        )
    }
}
