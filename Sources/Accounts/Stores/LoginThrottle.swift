import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Limits password guessing per account and per client address.
///
/// An attempt is counted *before* the password is checked, in its own committed statement, so parallel
/// guesses cannot slip past the limit; a successful sign-in then gives the attempt back. Counters live in
/// Postgres, so every server instance enforces the same limit.
public struct LoginThrottle: Sendable {
    public struct Policy: Sendable, Equatable {
        public var maxFailuresPerAccount: Int
        public var maxFailuresPerAddress: Int
        public var window: Duration

        public static let standard = Policy(maxFailuresPerAccount: 5, maxFailuresPerAddress: 20, window: .seconds(15 * 60))

        public init(maxFailuresPerAccount: Int, maxFailuresPerAddress: Int, window: Duration) {
            self.maxFailuresPerAccount = maxFailuresPerAccount
            self.maxFailuresPerAddress = maxFailuresPerAddress
            self.window = window
        }
    }

    struct Key: Sendable {
        let digest: [UInt8]
        let limit: Int
        /// Account counters reset on success; address counters only give back the one attempt.
        let resetsOnSuccess: Bool
    }

    let policy: Policy
    let logger: Logger

    func keys(accountIdentifier: String, address: String?, indexKey: SymmetricKey) -> [Key] {
        var keys = [Key(digest: FieldCipher.blindIndex("login-account:" + accountIdentifier, key: indexKey),
                        limit: policy.maxFailuresPerAccount, resetsOnSuccess: true)]
        if let address {
            keys.append(Key(digest: FieldCipher.blindIndex("login-address:" + address, key: indexKey),
                            limit: policy.maxFailuresPerAddress, resetsOnSuccess: false))
        }
        return keys
    }

    /// Counts one attempt against every key. Returns the seconds to wait when any key is over its limit.
    func reserve(_ keys: [Key], tenantID: UUID, on connection: PostgresConnection) async throws -> Int? {
        let windowSeconds = Int(policy.window.components.seconds)
        var retryAfter: Int?
        for key in keys {
            let rows = try await connection.query(
                """
                INSERT INTO login_throttle AS t (tenant_id, key, failures, window_started_at)
                VALUES (\(tenantID), \(Data(key.digest)), 1, now())
                ON CONFLICT (tenant_id, key) DO UPDATE SET
                    failures = CASE WHEN t.window_started_at <= now() - make_interval(secs => \(windowSeconds))
                                    THEN 1 ELSE t.failures + 1 END,
                    window_started_at = CASE WHEN t.window_started_at <= now() - make_interval(secs => \(windowSeconds))
                                             THEN now() ELSE t.window_started_at END
                RETURNING failures,
                          ceil(extract(epoch FROM window_started_at + make_interval(secs => \(windowSeconds)) - now()))::int
                """,
                logger: logger
            )
            for try await (failures, remaining) in rows.decode((Int, Int).self) where failures > key.limit {
                retryAfter = max(retryAfter ?? 0, remaining)
            }
        }
        return retryAfter
    }

    /// After a successful sign-in.
    func release(_ keys: [Key], on connection: PostgresConnection) async throws {
        for key in keys {
            if key.resetsOnSuccess {
                try await connection.query("DELETE FROM login_throttle WHERE key = \(Data(key.digest))", logger: logger)
            } else {
                try await connection.query(
                    "UPDATE login_throttle SET failures = greatest(failures - 1, 0) WHERE key = \(Data(key.digest))", logger: logger
                )
            }
        }
    }
}
