import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The data keys of people who are chatting, kept unwrapped for a few minutes, so that a send can seal its
/// question before its one round trip (decision 0018) instead of reading the wrapped key in that statement and
/// sealing after it.
///
/// A data key never changes for a user (a master key rotation rewraps it; decision 0002), so a remembered key is
/// never stale; a deleted account's key is remembered until it expires, but the account's sessions are gone, so
/// no statement a send makes with it gets past its session check. The price, documented in docs/security.md: an
/// unwrapped key stays in the server's memory for up to `ttl` after it was read.
public final class RecentDataKeys: Sendable {
    private struct Entry {
        let key: SymmetricKey
        let expires: ContinuousClock.Instant
    }

    static let capacity = 10_000

    let keys: UserDataKeys
    let client: PostgresClient
    let ttl: Duration
    let logger: Logger
    private let entries = NIOLockedValueBox<[UUID: Entry]>([:])

    public init(keys: UserDataKeys, client: PostgresClient, ttl: Duration = .seconds(300), logger: Logger) {
        (self.keys, self.client, self.ttl, self.logger) = (keys, client, ttl, logger)
    }

    /// The user's key; on a miss one statement reads it (`hearth_user_key`, migration 0030). `nil`: the user no
    /// longer exists.
    public func key(tenantID: UUID, userID: UUID) async throws -> SymmetricKey? {
        let now = ContinuousClock.now
        if let entry = entries.withLockedValue({ $0[userID] }), entry.expires > now { return entry.key }
        let rows = try await client.query("SELECT master_version, wrapped_key FROM hearth_user_key(\(tenantID), \(userID))", logger: logger)
        var key: SymmetricKey?
        for try await (version, sealed) in rows.decode((Int, Data).self) {
            key = try keys.unwrap(masterVersion: version, wrapped: Array(sealed), of: userID)
        }
        if let key {
            entries.withLockedValue { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[userID] = Entry(key: key, expires: now + ttl)
            }
        }
        return key
    }
}
