import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `auth_sessions` and `refresh_tokens`: one session per sign-in, one family of rotating refresh tokens
/// per session.
struct SessionStore: Sendable {
    enum Method: String, Sendable { case anonymous, email, apple }

    enum Exchange: Sendable {
        case rotated(userID: UUID, sessionID: UUID, refreshToken: String)
        /// The token had already been exchanged: someone holds a copy. The family is now revoked.
        case reused
        case revoked
        case expired
        case unknown
    }

    struct Session: Sendable {
        let id: UUID
        let method: String
        let createdAt: Date
        let lastUsedAt: Date
        let revokedAt: Date?
        let revokedReason: String?
    }

    let refreshLifetime: Duration
    let logger: Logger

    func create(tenantID: UUID, userID: UUID, method: Method, on connection: PostgresConnection) async throws -> (UUID, String) {
        let sessionID = RandomBytes.uuid()
        try await connection.query(
            """
            INSERT INTO auth_sessions (id, tenant_id, user_id, method)
            VALUES (\(sessionID), \(tenantID), \(userID), \(method.rawValue))
            """,
            logger: logger
        )
        let token = try await issueRefreshToken(tenantID: tenantID, sessionID: sessionID, on: connection)
        return (sessionID, token)
    }

    private func issueRefreshToken(tenantID: UUID, sessionID: UUID, on connection: PostgresConnection) async throws -> String {
        let token = "hrt_" + Secrets.randomToken(byteCount: 32)
        let seconds = Int(refreshLifetime.components.seconds)
        try await connection.query(
            """
            INSERT INTO refresh_tokens (tenant_id, token_hash, session_id, expires_at)
            VALUES (\(tenantID), \(Data(Secrets.sha256(token))), \(sessionID), now() + make_interval(secs => \(seconds)))
            """,
            logger: logger
        )
        return token
    }

    /// Exchanges a refresh token for a new one. The row lock serialises concurrent exchanges of one token:
    /// exactly one wins, any other is reuse.
    func exchange(_ token: String, tenantID: UUID, on connection: PostgresConnection) async throws -> Exchange {
        let rows = try await connection.query(
            """
            SELECT r.session_id, s.user_id, r.used_at IS NOT NULL, s.revoked_at IS NOT NULL, r.expires_at <= now()
            FROM refresh_tokens r JOIN auth_sessions s ON s.id = r.session_id
            WHERE r.token_hash = \(Data(Secrets.sha256(token)))
            FOR UPDATE OF r, s
            """,
            logger: logger
        )
        var found: (UUID, UUID, Bool, Bool, Bool)?
        for try await row in rows.decode((UUID, UUID, Bool, Bool, Bool).self) { found = row }
        guard let (sessionID, userID, used, revoked, expired) = found else { return .unknown }
        if revoked { return .revoked }
        if used {
            _ = try await revoke(sessionID, userID: userID, reason: "reuse_detected", on: connection)
            return .reused
        }
        if expired { return .expired }
        try await connection.query(
            "UPDATE refresh_tokens SET used_at = now() WHERE token_hash = \(Data(Secrets.sha256(token)))", logger: logger
        )
        try await connection.query("UPDATE auth_sessions SET last_used_at = now() WHERE id = \(sessionID)", logger: logger)
        let next = try await issueRefreshToken(tenantID: tenantID, sessionID: sessionID, on: connection)
        return .rotated(userID: userID, sessionID: sessionID, refreshToken: next)
    }

    /// One statement outside any transaction, on every signed-in request but a send: whether the session is live
    /// and, when it is, the request counted against the tenant's and the person's rate limits
    /// (migrations/0022_admission.sql).
    func admit(_ sessionID: UUID, userID: UUID, tenantID: UUID, on client: PostgresClient) async throws -> SessionGate {
        let rows = try await client.liveRows(
            "SELECT active, name, quota, window_seconds, used, reset_seconds FROM hearth_session_admit(\(tenantID), \(sessionID), \(userID))",
            logger: logger
        )
        for (active, name, quota, window, used, reset) in try rows.decode((Bool, String?, Int64?, Int?, Int64?, Int?).self) {
            return SessionGate(active: active, name: name, quota: quota, window: window, used: used, reset: reset)
        }
        return SessionGate(active: false, name: nil, quota: nil, window: nil, used: nil, reset: nil)
    }

    /// Returns `false` when the user has no such live session.
    func revoke(_ sessionID: UUID, userID: UUID, reason: String, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(reason)
            WHERE id = \(sessionID) AND user_id = \(userID) AND revoked_at IS NULL
            RETURNING 1
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    func list(userID: UUID, on connection: PostgresConnection) async throws -> [Session] {
        let rows = try await connection.query(
            """
            SELECT id, method, created_at, last_used_at, revoked_at, revoked_reason
            FROM auth_sessions WHERE user_id = \(userID) ORDER BY created_at DESC
            """,
            logger: logger
        )
        var sessions: [Session] = []
        for try await row in rows.decode((UUID, String, Date, Date, Date?, String?).self) {
            sessions.append(Session(id: row.0, method: row.1, createdAt: row.2, lastUsedAt: row.3, revokedAt: row.4, revokedReason: row.5))
        }
        return sessions
    }
}
