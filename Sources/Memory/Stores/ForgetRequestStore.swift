import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `memory_forget_requests`: the first step of "forget everything". Only a hash of the confirmation
/// token is stored.
struct ForgetRequestStore: Sendable {
    enum Check: Sendable {
        case confirmable
        case coolingDown(until: Date)
        case noRequest
    }

    let logger: Logger

    /// Replaces any earlier request.
    func request(tenantID: UUID, userID: UUID, token: String, coolDown: Duration, window: Duration, on connection: PostgresConnection) async throws -> (confirmableAt: Date, expiresAt: Date) {
        let rows = try await connection.query(
            """
            INSERT INTO memory_forget_requests (tenant_id, user_id, token_hash, confirmable_at, expires_at)
            VALUES (\(tenantID), \(userID), \(Self.hash(token)), now() + make_interval(secs => \(coolDown.seconds)),
                    now() + make_interval(secs => \(coolDown.seconds + window.seconds)))
            ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, confirmable_at = excluded.confirmable_at,
                                                expires_at = excluded.expires_at
            RETURNING confirmable_at, expires_at
            """,
            logger: logger
        )
        let row = try await rows.collect().first!
        return try row.decode((Date, Date).self)
    }

    /// Whether `token` confirms the user's pending request now (compared in constant time); a confirmable
    /// request is consumed.
    func consume(userID: UUID, token: String, on connection: PostgresConnection) async throws -> Check {
        let rows = try await connection.query(
            """
            SELECT token_hash, confirmable_at, confirmable_at <= now(), expires_at > now()
            FROM memory_forget_requests WHERE user_id = \(userID) FOR UPDATE
            """,
            logger: logger
        )
        guard let row = try await rows.collect().first else { return .noRequest }
        let (hash, confirmableAt, ready, live) = try row.decode((Data, Date, Bool, Bool).self)
        guard live, Secrets.constantTimeEquals(Array(hash), Array(Self.hash(token))) else { return .noRequest }
        guard ready else { return .coolingDown(until: confirmableAt) }
        try await cancel(userID: userID, on: connection)
        return .confirmable
    }

    func cancel(userID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM memory_forget_requests WHERE user_id = \(userID)", logger: logger)
    }

    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }
}
