import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// How other features get a user's data key to encrypt and decrypt that user's personal content.
/// Accounts owns `user_keys`; this is the only door to it.
public struct UserDataKeys: Sendable {
    let users: UserStore

    public init(keyRing: KeyRing, logger: Logger) {
        users = UserStore(keyRing: keyRing, logger: logger)
    }

    /// The key, or `nil` when the user (and so the key) no longer exists.
    public func key(for userID: UUID, on connection: PostgresConnection) async throws -> SymmetricKey? {
        try await users.dataKey(of: userID, on: connection)
    }

    /// The key read in one statement of its own, for a caller without a transaction (``RecentDataKeys``).
    public func key(for userID: UUID, tenantID: UUID, client: PostgresClient) async throws -> SymmetricKey? {
        try await users.dataKey(of: userID, tenantID: tenantID, client: client)
    }

    /// Unwraps a key that a feature read in its own statement: the chat turn reads `user_keys` inside its one
    /// round trip (migrations/0006_chat_turn.sql) rather than spending another on ``key(for:on:)``.
    public func unwrap(masterVersion: Int, wrapped: [UInt8], of userID: UUID) throws -> SymmetricKey {
        try users.unwrap(masterVersion: masterVersion, wrapped: wrapped, of: userID)
    }

    /// A signed-in request whose user has no key: their token outlived the account.
    public static let accountGone = APIError.unauthorized("authentication_required", "This account no longer exists.")

    /// Runs `body` in one transaction scoped to the tenant, with the user's data key. A user who no longer exists
    /// (their token outlived the account) is a 401.
    public func withKey<T: Sendable>(
        _ database: Database, tenantID: UUID, userID: UUID, _ body: @escaping @Sendable (PostgresConnection, SymmetricKey) async throws -> T
    ) async throws -> T {
        try await database.withTenant(tenantID) { [self] connection in
            guard let key = try await key(for: userID, on: connection) else {
                throw Self.accountGone
            }
            return try await body(connection, key)
        }
    }
}
