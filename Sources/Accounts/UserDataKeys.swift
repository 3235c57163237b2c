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
}
