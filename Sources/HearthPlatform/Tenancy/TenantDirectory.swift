import Foundation
import NIOConcurrencyHelpers

/// The client-key lookup every API request makes, remembered for a short time.
///
/// The key → tenant mapping changes rarely (a key added, revoked; a setting edited), while every request
/// needs it; a few seconds of memory removes a database round trip from each request. The price, documented
/// in docs/security.md: a revoked key or an edited tenant setting takes up to `ttl` to reach every instance.
/// Unknown keys are not remembered, so random keys cannot fill the memory.
public final class TenantDirectory: Sendable {
    private struct Entry {
        let lookup: TenantStore.ClientKeyLookup
        let expires: ContinuousClock.Instant
    }

    static let capacity = 10_000

    let store: TenantStore
    let ttl: Duration
    let now: @Sendable () -> ContinuousClock.Instant
    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    /// `ttl` zero turns the memory off (every request asks the database). `now` is for tests.
    public init(store: TenantStore, ttl: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.store = store
        self.ttl = ttl
        self.now = now
    }

    /// Forgets what this instance remembers of a tenant, after an operator changed it here: its keys and settings
    /// take effect on this instance at once (others within `ttl`).
    public func forget(tenantID: UUID) {
        entries.withLockedValue { entries in
            entries = entries.filter { _, entry in
                if case .active(let tenant) = entry.lookup { return tenant.id != tenantID }
                return true
            }
        }
    }

    public func lookup(clientKey: String) async throws -> TenantStore.ClientKeyLookup {
        guard ttl > .zero else { return try await store.lookup(clientKey: clientKey) }
        let now = now()
        if let entry = entries.withLockedValue({ $0[clientKey] }), entry.expires > now { return entry.lookup }
        let lookup = try await store.lookup(clientKey: clientKey)
        if lookup != .unknown {
            entries.withLockedValue { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[clientKey] = Entry(lookup: lookup, expires: now + ttl)
            }
        }
        return lookup
    }
}
