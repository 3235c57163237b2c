import Foundation
import HearthPlatform
import PostgresNIO

/// Operator sign-in: email and password (argon2id) for an opaque bearer token, lockout after repeated failures,
/// sessions that end when idle, when old, or on sign-out. Owns `operator_sessions`; the operator API sends the
/// token as `Authorization: Bearer`, and the console (issue 8) keeps the same token in a cookie.
public struct OperatorSessions: Sendable {
    public struct Policy: Sendable, Equatable {
        /// Failed sign-ins in a row that an account tolerates; the next attempt locks it.
        public var maxFailures = 5
        public var lockout: Duration = .seconds(15 * 60)
        /// A session unused this long is over.
        public var idleTimeout: Duration = .seconds(30 * 60)
        /// And any session ends this long after sign-in.
        public var lifetime: Duration = .seconds(12 * 3600)

        public init() {}
    }

    public struct SignedIn: Sendable {
        public let token: String
        public let session: OperatorSession
        public let expiresAt: Date
    }

    let database: Database
    let operators: OperatorStore
    let hasher: PasswordHasher
    public let policy: Policy
    /// Checked when the email is unknown, so a wrong email takes as long as a wrong password.
    let decoyHash: String

    public static func make(database: Database, hasher: PasswordHasher, policy: Policy) async throws -> OperatorSessions {
        OperatorSessions(database: database, operators: OperatorStore(database: database, hasher: hasher), hasher: hasher,
                         policy: policy, decoyHash: try await hasher.hash(Secrets.randomHex(byteCount: 16)))
    }

    static let invalidCredentials = APIError.unauthorized("invalid_credentials", "That email and password do not match an operator.")

    public func signIn(email: String, password: String) async throws -> SignedIn {
        let found = try await database.withPlatformTransaction { [self] connection in try await operators.find(email: email, on: connection) }
        guard let (account, passwordHash) = found else {
            _ = try await hasher.verify(password, against: decoyHash)
            throw Self.invalidCredentials
        }
        if let lockedFor = try await operators.reserveAttempt(account.id, maxFailures: policy.maxFailures, lockout: policy.lockout) {
            throw APIError.tooManyRequests("operator_locked", "Too many failed sign-ins: this account is locked for a while.", retryAfter: lockedFor)
        }
        guard try await hasher.verify(password, against: passwordHash) else { throw Self.invalidCredentials }

        let token = "hos_" + Secrets.randomToken(byteCount: 32)
        let sessionID = RandomBytes.uuid()
        let lifetime = Int(policy.lifetime.components.seconds)
        let expiresAt = try await database.withPlatformTransaction { [self] connection in
            try await operators.clearFailures(account.id, on: connection)
            let rows = try await connection.query(
                """
                INSERT INTO operator_sessions (id, operator_id, token_hash, expires_at)
                VALUES (\(sessionID), \(account.id), \(Data(Secrets.sha256(token))), now() + make_interval(secs => \(lifetime)))
                RETURNING expires_at
                """,
                logger: database.logger
            )
            return try await rows.decode(Date.self).first { _ in true } ?? Date()
        }
        return SignedIn(token: token, session: OperatorSession(id: sessionID, account: account), expiresAt: expiresAt)
    }

    /// The live session a token names, its idle clock restarted; `nil` for an unknown, expired, idle, revoked or
    /// disabled one. The token is found by its hash, so the lookup's timing says nothing about its bytes.
    public func authenticate(token: String) async throws -> OperatorSession? {
        guard token.hasPrefix("hos_"), token.count < 100 else { return nil }
        let idle = Int(policy.idleTimeout.components.seconds)
        let rows = try await database.client.liveRows(
            """
            UPDATE operator_sessions s SET last_seen_at = now()
            FROM operators o
            WHERE s.token_hash = \(Data(Secrets.sha256(token))) AND o.id = s.operator_id
              AND s.revoked_at IS NULL AND s.expires_at > now()
              AND s.last_seen_at > now() - make_interval(secs => \(idle))
              AND o.disabled_at IS NULL
            RETURNING s.id, o.id, o.email, o.role, o.tenant_id
            """,
            logger: database.logger
        )
        for (sessionID, id, email, role, tenantID) in try rows.decode((UUID, UUID, String, String, UUID?).self) {
            return OperatorStore.account(id, email, role, tenantID).map { OperatorSession(id: sessionID, account: $0) }
        }
        return nil
    }

    public func signOut(_ session: OperatorSession) async throws {
        try await database.client.liveRows(
            "UPDATE operator_sessions SET revoked_at = now() WHERE id = \(session.id) AND revoked_at IS NULL", logger: database.logger
        )
    }
}
