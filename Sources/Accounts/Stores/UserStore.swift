import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `users`, `user_keys`, `email_credentials` and `apple_identities`.
/// Every method runs on a connection already scoped to the tenant (``Database/withTenant(_:_:)``).
struct UserStore: Sendable {
    struct Account: Sendable {
        let id: UUID
        let isAnonymous: Bool
        let createdAt: Date
        let emailCiphertext: [UInt8]?
        let appleLinked: Bool
    }

    let keyRing: KeyRing
    let logger: Logger

    static func keyContext(_ userID: UUID) -> String { "user:\(userID.uuidString.lowercased())" }
    static func emailContext(_ userID: UUID) -> String { "email_credentials.email:\(userID.uuidString.lowercased())" }

    /// Inserts a user and a fresh data key wrapped by the current master key.
    func create(tenantID: UUID, anonymous: Bool, on connection: PostgresConnection) async throws -> (UUID, SymmetricKey) {
        let id = RandomBytes.uuid()
        let dataKey = keyRing.generateDataKey()
        let wrapped = try keyRing.wrap(dataKey, context: Self.keyContext(id))
        try await connection.query(
            "INSERT INTO users (id, tenant_id, is_anonymous) VALUES (\(id), \(tenantID), \(anonymous))", logger: logger
        )
        try await connection.query(
            """
            INSERT INTO user_keys (tenant_id, user_id, master_version, wrapped_key)
            VALUES (\(tenantID), \(id), \(wrapped.masterVersion), \(Data(wrapped.sealed)))
            """,
            logger: logger
        )
        return (id, dataKey)
    }

    /// The user's data key, or `nil` once it is gone (deleted account: its ciphertext is unreadable).
    func dataKey(of userID: UUID, on connection: PostgresConnection) async throws -> SymmetricKey? {
        try unwrapped(await connection.query("SELECT master_version, wrapped_key FROM user_keys WHERE user_id = \(userID)", logger: logger).collect(),
                            of: userID)
    }

    /// The same in one statement outside any transaction (`hearth_user_key`, migration 0030, scopes its own to the
    /// tenant): the exception to this store's rule, for the chat turn, which holds no transaction open.
    func dataKey(of userID: UUID, tenantID: UUID, client: PostgresClient) async throws -> SymmetricKey? {
        try unwrapped(await client.liveRows("SELECT master_version, wrapped_key FROM hearth_user_key(\(tenantID), \(userID))", logger: logger),
                            of: userID)
    }

    private func unwrapped(_ rows: [PostgresRow], of userID: UUID) throws -> SymmetricKey? {
        try rows.decode((Int, Data).self).first.map { version, sealed in
            try unwrap(masterVersion: version, wrapped: Array(sealed), of: userID)
        }
    }

    func unwrap(masterVersion: Int, wrapped: [UInt8], of userID: UUID) throws -> SymmetricKey {
        try keyRing.unwrap(.init(masterVersion: masterVersion, sealed: wrapped), context: Self.keyContext(userID))
    }

    func account(_ userID: UUID, on connection: PostgresConnection) async throws -> Account? {
        let rows = try await connection.query(
            """
            SELECT u.id, u.is_anonymous, u.created_at, e.email_ciphertext, a.user_id IS NOT NULL
            FROM users u
            LEFT JOIN email_credentials e ON e.user_id = u.id
            LEFT JOIN apple_identities a ON a.user_id = u.id
            WHERE u.id = \(userID)
            """,
            logger: logger
        )
        for try await (id, anonymous, created, email, apple) in rows.decode((UUID, Bool, Date, Data?, Bool).self) {
            return Account(id: id, isAnonymous: anonymous, createdAt: created, emailCiphertext: email.map(Array.init), appleLinked: apple)
        }
        return nil
    }

    /// Returns `false` when the email index is taken in this tenant.
    func addEmailCredential(
        tenantID: UUID, userID: UUID, emailIndex: [UInt8], emailCiphertext: [UInt8], passwordHash: String,
        on connection: PostgresConnection
    ) async throws -> Bool {
        let rows = try await connection.query(
            """
            INSERT INTO email_credentials (tenant_id, user_id, email_index, email_ciphertext, password_hash)
            VALUES (\(tenantID), \(userID), \(Data(emailIndex)), \(Data(emailCiphertext)), \(passwordHash))
            ON CONFLICT (tenant_id, email_index) DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    func emailCredential(index: [UInt8], on connection: PostgresConnection) async throws -> (userID: UUID, passwordHash: String)? {
        let rows = try await connection.query(
            "SELECT user_id, password_hash FROM email_credentials WHERE email_index = \(Data(index))", logger: logger
        )
        for try await (userID, hash) in rows.decode((UUID, String).self) { return (userID, hash) }
        return nil
    }

    func appleUser(subjectIndex: [UInt8], on connection: PostgresConnection) async throws -> UUID? {
        let rows = try await connection.query(
            "SELECT user_id FROM apple_identities WHERE subject_index = \(Data(subjectIndex))", logger: logger
        )
        for try await userID in rows.decode(UUID.self) { return userID }
        return nil
    }

    /// Returns `false` when that Apple ID is already linked in this tenant, or this user has one.
    func linkApple(tenantID: UUID, userID: UUID, subjectIndex: [UInt8], on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            INSERT INTO apple_identities (tenant_id, user_id, subject_index)
            VALUES (\(tenantID), \(userID), \(Data(subjectIndex)))
            ON CONFLICT DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    func markIdentified(_ userID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE users SET is_anonymous = false WHERE id = \(userID)", logger: logger)
    }

    /// Deletes the user; foreign keys cascade to every row that belongs to them, data key included.
    func delete(_ userID: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("DELETE FROM users WHERE id = \(userID) RETURNING 1", logger: logger)
        return try await rows.collect().count == 1
    }
}

extension UserStore {
    /// Re-seals up to `limit` data keys still under an older master key version; returns how many.
    func rewrapBatch(limit: Int, on connection: PostgresConnection) async throws -> Int {
        let current = keyRing.current.version
        let rows = try await connection.query(
            """
            SELECT user_id, master_version, wrapped_key FROM user_keys
            WHERE master_version <> \(current)
            LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """,
            logger: logger
        )
        // Read the batch fully before updating: one connection runs one query at a time.
        var batch: [(UUID, Int, [UInt8])] = []
        for try await (id, version, sealed) in rows.decode((UUID, Int, Data).self) { batch.append((id, version, Array(sealed))) }
        var count = 0
        for (userID, version, sealed) in batch {
            let rewrapped = try keyRing.rewrap(.init(masterVersion: version, sealed: sealed), context: Self.keyContext(userID))
            try await connection.query(
                """
                UPDATE user_keys SET master_version = \(rewrapped.masterVersion), wrapped_key = \(Data(rewrapped.sealed))
                WHERE user_id = \(userID)
                """,
                logger: logger
            )
            count += 1
        }
        return count
    }
}
