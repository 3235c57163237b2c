import HearthPlatform
import HearthTestSupport
import NIOConcurrencyHelpers
import Testing

/// The remembered client-key lookup: one database query per key per TTL, and a revocation that lands once
/// the TTL has passed.
@Suite struct TenantDirectoryTests {
    @Test func aLookupIsRememberedForItsTTLThenAskedAgain() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.withAppDatabase { database in
            let store = TenantStore(database: database, keyRing: hearth.keyRing)
            let clock = NIOLockedValueBox(ContinuousClock.now)
            let directory = TenantDirectory(store: store, ttl: .seconds(5)) { clock.withLockedValue { $0 } }

            #expect(try await directory.lookup(clientKey: key) == .active(tenant))
            #expect(try await store.revokeClientKey(key))
            clock.withLockedValue { $0 += .seconds(4) }
            #expect(try await directory.lookup(clientKey: key) == .active(tenant), "within the TTL the remembered answer stands")
            clock.withLockedValue { $0 += .seconds(2) }
            #expect(try await directory.lookup(clientKey: key) == .revoked, "after the TTL the database is asked again")

            // Unknown keys are never remembered: a key created a moment later works at once.
            let later = try await store.addClientKey(slug: tenant.slug)
            let unrelated = TenantDirectory(store: store, ttl: .seconds(5)) { clock.withLockedValue { $0 } }
            #expect(try await unrelated.lookup(clientKey: "hpk_not_yet") == .unknown)
            #expect(try await unrelated.lookup(clientKey: later) == .active(tenant))
        }
    }

    @Test func aZeroTTLAsksTheDatabaseEveryTime() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = TenantStore(database: database, keyRing: hearth.keyRing)
            let directory = TenantDirectory(store: store, ttl: .zero)
            #expect(try await directory.lookup(clientKey: key) != .unknown)
            #expect(try await store.revokeClientKey(key))
            #expect(try await directory.lookup(clientKey: key) == .revoked)
        }
    }
}
