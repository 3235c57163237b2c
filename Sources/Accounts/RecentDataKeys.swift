import Crypto
import Foundation
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
    private let entries = NIOLockedValueBox<[UUID: Entry]>([:])

    public init(keys: UserDataKeys, client: PostgresClient, ttl: Duration = .seconds(300)) {
        (self.keys, self.client, self.ttl) = (keys, client, ttl)
    }

    /// The user's key; on a miss one statement reads it (``UserDataKeys/key(for:tenantID:client:)``). `nil`: the
    /// user no longer exists.
    public func key(tenantID: UUID, userID: UUID) async throws -> SymmetricKey? {
        let now = ContinuousClock.now
        if let entry = entries.withLockedValue({ $0[userID] }), entry.expires > now { return entry.key }
        let key = try await keys.key(for: userID, tenantID: tenantID, client: client)
        if let key {
            entries.withLockedValue { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[userID] = Entry(key: key, expires: now + ttl)
            }
        }
        return key
    }
}
