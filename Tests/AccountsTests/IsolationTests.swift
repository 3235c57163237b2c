import Foundation
import HearthPlatform
import HearthTestSupport
import Testing

@Suite struct IsolationTests {
    @Test func clientKeysMustBePresentKnownAndActive() async throws {
        let hearth = try await TestHearth.make { $0.tenantCacheTTL = .zero }
        let (tenant, key) = try await hearth.createTenant()
        let second = try await hearth.withAppDatabase { database in
            try await TenantStore(database: database, keyRing: hearth.keyRing).addClientKey(slug: tenant.slug)
        }
        try await hearth.test { client in
            #expect(try await client.call(.post, "/v1/auth/anonymous").errorCode == "client_key_missing")
            #expect(try await client.call(.post, "/v1/auth/anonymous", clientKey: "hpk_nope").errorCode == "client_key_invalid")
            #expect(try await client.call(.post, "/v1/auth/anonymous", clientKey: second).status == .created)
            let revoked = try await hearth.withAppDatabase { database in
                try await TenantStore(database: database, keyRing: hearth.keyRing).revokeClientKey(key)
            }
            #expect(revoked)
            let response = try await client.call(.post, "/v1/auth/anonymous", clientKey: key)
            #expect(response.status == .unauthorized)
            #expect(response.errorCode == "client_key_revoked")
            // Rotation: the newer key keeps working.
            #expect(try await client.call(.post, "/v1/auth/anonymous", clientKey: second).status == .created)
        }
    }

    @Test func anotherTenantsResourcesAreNotFound() async throws {
        let hearth = try await TestHearth.make()
        let (_, keyA) = try await hearth.createTenant()
        let (_, keyB) = try await hearth.createTenant()
        try await hearth.test { client in
            let alice = try await client.signUp(clientKey: keyA, email: "alice@example.com")
            let bob = try await client.signUp(clientKey: keyB, email: "bob@example.com")
            let aliceSessions = try await client.call(.get, "/v1/me/sessions", clientKey: keyA, token: alice.accessToken)
            let aliceSession = try #require((aliceSessions["sessions"] as? [[String: Any]])?.first?["id"] as? String)
            // Bob (tenant B) names Alice's session (tenant A): not found, and it stays live.
            let attempt = try await client.call(.delete, "/v1/me/sessions/\(aliceSession)", clientKey: keyB, token: bob.accessToken)
            #expect(attempt.status == .notFound)
            #expect(try await client.call(.get, "/v1/me", clientKey: keyA, token: alice.accessToken).status == .ok)
            // Alice's token presented with tenant B's key is not accepted there.
            #expect(try await client.call(.get, "/v1/me", clientKey: keyB, token: alice.accessToken).errorCode == "access_token_invalid")
            // Alice's credentials do not sign in to tenant B.
            #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: keyB,
                                          json: ["email": "alice@example.com", "password": "correct horse battery"]).status == .unauthorized)
        }
    }

    @Test func anotherUsersSessionIsNotFoundWithinATenant() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let alice = try await client.anonymous(clientKey: key)
            let mallory = try await client.anonymous(clientKey: key)
            let sessions = try await client.call(.get, "/v1/me/sessions", clientKey: key, token: alice.accessToken)
            let aliceSession = try #require((sessions["sessions"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await client.call(.delete, "/v1/me/sessions/\(aliceSession)", clientKey: key, token: mallory.accessToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: alice.accessToken).status == .ok)
        }
    }
}
