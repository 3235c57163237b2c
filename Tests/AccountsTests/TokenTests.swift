import Accounts
import Foundation
import HearthPlatform
import HearthTestSupport
import Testing

@Suite struct TokenTests {
    @Test func refreshRotatesAndReuseRevokesTheWholeFamily() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let first = try await client.anonymous(clientKey: key)
            let second = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": first.refreshToken])
            #expect(second.status == .ok)
            let rotated = try second.decode(Grant.self)
            #expect(rotated.refreshToken != first.refreshToken)
            #expect(rotated.user.id == first.user.id)
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: rotated.accessToken).status == .ok)

            // The first token is presented again: someone has a copy. The session is revoked...
            let replay = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": first.refreshToken])
            #expect(replay.status == .unauthorized)
            #expect(replay.errorCode == "refresh_token_reused")
            // ...so the legitimate newer tokens stop working too.
            let newer = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": rotated.refreshToken])
            #expect(newer.errorCode == "session_revoked")
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: rotated.accessToken).errorCode == "session_revoked")
        }
    }

    @Test func refreshTokensAreStoredOnlyAsDigests() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        let grant = try await hearth.test { client in try await client.anonymous(clientKey: key) }
        let matches = try await hearth.adminCount("refresh_tokens WHERE token_hash = sha256('\(grant.refreshToken)'::bytea)")
        #expect(matches == 1)
        let plain = try await hearth.adminCount("refresh_tokens WHERE position('\(grant.refreshToken)'::bytea IN token_hash) > 0")
        #expect(plain == 0)
    }

    @Test func concurrentRefreshesWithOneTokenLetExactlyOneWin() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": grant.refreshToken]).status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 401 }.count == 3)
        }
    }

    @Test func expiredAndUnknownRefreshTokensAreRejected() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            _ = try await hearth.withAdminDatabase { database in
                try await database.client.query("UPDATE refresh_tokens SET expires_at = now() - interval '1 second'", logger: database.logger)
            }
            let expired = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": grant.refreshToken])
            #expect(expired.errorCode == "refresh_token_expired")
            let unknown = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": "hrt_" + Secrets.randomToken()])
            #expect(unknown.errorCode == "refresh_token_invalid")
            let garbage = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": "nonsense"])
            #expect(garbage.errorCode == "refresh_token_invalid")
        }
    }

    @Test func logoutRevokesAccessAndRefreshTokensAtOnce() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            let logout = try await client.call(.post, "/v1/auth/logout", clientKey: key, token: grant.accessToken)
            #expect(logout.status == .noContent)
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: grant.accessToken).errorCode == "session_revoked")
            #expect(try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": grant.refreshToken]).errorCode == "session_revoked")
        }
    }

    @Test func badAccessTokensAreRejectedNotIgnored() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            let tampered = String(grant.accessToken.dropLast(2)) + (grant.accessToken.hasSuffix("AA") ? "BB" : "AA")
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: tampered).errorCode == "access_token_invalid")
            #expect(try await client.call(.get, "/v1/me", clientKey: key, headers: [.authorization: "Basic abc"]).errorCode == "access_token_invalid")
            #expect(try await client.call(.get, "/v1/me", clientKey: key).errorCode == "authentication_required")
            // Where identity matters (an upgrade), a bad token is an error rather than a silent new account.
            let upgrade = try await client.call(.post, "/v1/auth/email/signup", clientKey: key, token: "x.y.z",
                                                json: ["email": "new@example.com", "password": "correct horse battery"])
            #expect(upgrade.errorCode == "access_token_invalid")
            // Refresh ignores Authorization: apps refresh precisely because that token went stale.
            let refreshed = try await client.call(.post, "/v1/auth/refresh", clientKey: key, token: tampered,
                                                  json: ["refreshToken": grant.refreshToken])
            #expect(refreshed.status == .ok)
        }
    }

    @Test func expiredAccessTokensAreRejected() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let grant = try await hearth.test { client in try await client.anonymous(clientKey: key) }
        let tokens = AccessTokens(keyRing: hearth.keyRing, lifetime: .seconds(900))
        let old = tokens.issue(userID: grant.user.id, sessionID: UUID(), tenantID: tenant.id, now: Date().addingTimeInterval(-3600))
        try await hearth.test { client in
            let response = try await client.call(.get, "/v1/me", clientKey: key, token: old)
            #expect(response.errorCode == "access_token_invalid")
        }
    }

    @Test func usersListAndSignOutTheirOwnSessions() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let phone = try await client.signUp(clientKey: key, email: "sam@example.com")
            let tabletResponse = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "sam@example.com", "password": "correct horse battery"])
            let tablet = try tabletResponse.decode(Grant.self)
            let list = try await client.call(.get, "/v1/me/sessions", clientKey: key, token: phone.accessToken)
            let sessions = list["sessions"] as? [[String: Any]] ?? []
            #expect(sessions.count == 2)
            #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
            let tabletID = try #require(sessions.first { $0["current"] as? Bool == false }?["id"] as? String)
            #expect(try await client.call(.delete, "/v1/me/sessions/\(tabletID)", clientKey: key, token: phone.accessToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: tablet.accessToken).errorCode == "session_revoked")
            #expect(try await client.call(.delete, "/v1/me/sessions/\(tabletID)", clientKey: key, token: phone.accessToken).status == .notFound)
            #expect(try await client.call(.delete, "/v1/me/sessions/not-a-uuid", clientKey: key, token: phone.accessToken).status == .notFound)
        }
    }
}
