import Foundation
import HearthPlatform
import PostgresNIO

/// Owns the `operators` table: creating operators, and the counters behind sign-in lockout.
public struct OperatorStore: Sendable {
    let database: Database
    let hasher: PasswordHasher

    public init(database: Database, hasher: PasswordHasher) {
        self.database = database
        self.hasher = hasher
    }

    public static let minimumPasswordLength = 12

    /// Creates an operator. Platform admins have no tenant; every other role belongs to exactly one.
    public func create(email: String, password: String, role: Operator.Role, tenantID: UUID?) async throws -> Operator {
        let email = Self.normalised(email)
        guard email.contains("@"), email.count <= 254 else { throw ConfigError("'\(email)' is not an email address") }
        guard password.count >= Self.minimumPasswordLength else {
            throw ConfigError("operator passwords need at least \(Self.minimumPasswordLength) characters")
        }
        guard (role == .platformAdmin) == (tenantID == nil) else {
            throw ConfigError(role == .platformAdmin ? "a platform admin spans all tenants: give no tenant" : "role \(role.rawValue) needs a tenant")
        }
        let hash = try await hasher.hash(password)
        let id = RandomBytes.uuid()
        do {
            try await database.client.liveRows(
                """
                INSERT INTO operators (id, email, password_hash, role, tenant_id)
                VALUES (\(id), \(email), \(hash), \(role.rawValue), \(tenantID))
                """,
                logger: database.logger
            )
        } catch let error as PSQLError where error.isUniqueViolation {
            throw ConfigError("an operator with that email already exists", isConflict: true)
        }
        return Operator(id: id, email: email, role: role, tenantID: tenantID)
    }

    /// An operator who may sign in (not disabled), with their password hash.
    func find(email: String, on connection: PostgresConnection) async throws -> (Operator, passwordHash: String)? {
        let rows = try await connection.query(
            """
            SELECT id, email, role, tenant_id, password_hash FROM operators
            WHERE email = \(Self.normalised(email)) AND disabled_at IS NULL
            """,
            logger: database.logger
        )
        for try await (id, email, role, tenantID, hash) in rows.decode((UUID, String, String, UUID?, String).self) {
            guard let account = Self.account(id, email, role, tenantID) else { continue }
            return (account, hash)
        }
        return nil
    }

    /// Emails are stored trimmed and lowercased, and looked up the same way.
    static func normalised(_ email: String) -> String { email.trimmingCharacters(in: .whitespaces).lowercased() }

    /// An operator from its row's columns; `nil` for a role this version does not know.
    static func account(_ id: UUID, _ email: String, _ role: String, _ tenantID: UUID?) -> Operator? {
        Operator.Role(rawValue: role).map { Operator(id: id, email: email, role: $0, tenantID: tenantID) }
    }

    /// Counts a sign-in attempt *before* the password is checked (its own committed transaction, the row locked),
    /// so parallel guesses cannot slip past the limit. Returns the seconds left when the account is locked: the
    /// attempt past `maxFailures` locks it for `lockout`, and a locked account is refused unchecked.
    func reserveAttempt(_ id: UUID, maxFailures: Int, lockout: Duration) async throws -> Int? {
        let lockoutSeconds = Int(lockout.components.seconds)
        return try await database.withPlatformTransaction { [self] connection in
            let rows = try await connection.query(
                """
                SELECT failed_logins, coalesce(ceil(extract(epoch FROM locked_until - now()))::int, 0)
                FROM operators WHERE id = \(id) FOR UPDATE
                """,
                logger: database.logger
            )
            var state: (failures: Int, lockedFor: Int)?
            for try await row in rows.decode((Int, Int).self) { state = row }
            guard let state else { return nil }
            if state.lockedFor > 0 { return state.lockedFor }
            if state.failures + 1 > maxFailures {
                try await connection.query(
                    """
                    UPDATE operators SET failed_logins = 0, locked_until = now() + make_interval(secs => \(lockoutSeconds))
                    WHERE id = \(id)
                    """,
                    logger: database.logger
                )
                return lockoutSeconds
            }
            try await connection.query(
                "UPDATE operators SET failed_logins = failed_logins + 1, locked_until = NULL WHERE id = \(id)", logger: database.logger
            )
            return nil
        }
    }

    /// After a successful sign-in: the attempts before it no longer count.
    func clearFailures(_ id: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("UPDATE operators SET failed_logins = 0 WHERE id = \(id)", logger: database.logger)
    }
}
