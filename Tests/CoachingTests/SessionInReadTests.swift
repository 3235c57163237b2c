import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// A send and a history page check their session and count their request in their own first round trip
/// (decisions 0015 and 0016): the same refusals as every other route, before anything is read, admitted or stored.
@Suite struct SessionInReadTests {
    enum Route: String, CaseIterable, CustomTestStringConvertible {
        case send, page
        var testDescription: String { rawValue }

        func call(_ client: some TestClientProtocol, _ coachee: Coachee, key: String, token: String?) async throws -> APIResponse {
            switch self {
            case .send: try await client.call(.post, coachee.messagesPath, clientKey: key, token: token, json: ["content": "Still there?"])
            case .page: try await client.call(.get, coachee.messagesPath + "?limit=5", clientKey: key, token: token)
            }
        }
    }

    @Test(arguments: Route.allCases)
    func aSignedOutSessionOrABadTokenIsRefused(_ route: Route) async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            #expect(try await route.call(client, coachee, key: key, token: coachee.token).status == .ok)
            #expect(try await client.call(.post, "/v1/auth/logout", clientKey: key, token: coachee.token).status == .noContent)

            let revoked = try await route.call(client, coachee, key: key, token: coachee.token)
            #expect(revoked.status == .unauthorized && revoked.errorCode == "session_revoked")
            let forged = try await route.call(client, coachee, key: key, token: coachee.token + "x")
            #expect(forged.status == .unauthorized && forged.errorCode == "access_token_invalid")
            let anonymous = try await route.call(client, coachee, key: key, token: nil)
            #expect(anonymous.status == .unauthorized && anonymous.errorCode == "authentication_required")
            let basic = try await client.execute(uri: coachee.messagesPath, method: route == .send ? .post : .get,
                                                 headers: [HTTPField.Name("X-Hearth-Client-Key")!: key, .authorization: "Basic dXNlcjpwYXNz"])
            #expect(basic.status == .unauthorized)
        }
    }

    @Test func aSendWithASignedOutSessionStoresNothing() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let user = coachee.grant.user.id
            let subscriptions = try await hearth.adminCount("subscriptions WHERE user_id = '\(user)'")
            #expect(try await client.call(.post, "/v1/auth/logout", clientKey: key, token: coachee.token).status == .noContent)

            #expect(try await Route.send.call(client, coachee, key: key, token: coachee.token).status == .unauthorized)
            let (status, _) = try await coachee.sse.events(.POST, coachee.messagesPath, json: ["content": "Still there?"])
            #expect(status == 401)
            #expect(try await hearth.adminCount("messages WHERE user_id = '\(user)'") == 0)
            #expect(try await hearth.adminCount("stream_leases WHERE user_id = '\(user)'") == 0)
            #expect(try await hearth.adminCount("subscriptions WHERE user_id = '\(user)'") == subscriptions)
        }
    }

    @Test(arguments: Route.allCases)
    func theRequestIsCountedAgainstThePersonsRequestsPerMinuteAndSaysSo(_ route: Route) async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let answered = try await route.call(client, coachee, key: key, token: coachee.token)
            #expect(answered.status == .ok)
            let policy = try #require(answered.headers[.rateLimitPolicy])
            #expect(policy.hasPrefix("\"requests-per-minute\";q=") && policy.hasSuffix(";w=60"))
            #expect(answered.headers[.rateLimit] != nil)

            // One request a minute, and this minute's already used: windows align to the clock, so not at its end.
            try await hearth.admin("UPDATE billing_plans SET requests_per_minute = 1 WHERE tenant_id = '\(tenant.id)' AND code = 'trial'")
            let second = Calendar(identifier: .gregorian).component(.second, from: Date())
            if second > 50 { try await Task.sleep(for: .seconds(61 - second)) }
            _ = try await client.call(.get, "/v1/me", clientKey: key, token: coachee.token)
            let before = try await hearth.adminCount("messages WHERE user_id = '\(coachee.grant.user.id)'")
            let refused = try await route.call(client, coachee, key: key, token: coachee.token)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited")
            #expect(refused.headers[.rateLimitPolicy] == "\"requests-per-minute\";q=1;w=60")
            #expect(refused.headers[HTTPField.Name("Retry-After")!] != nil)
            #expect(try await hearth.adminCount("messages WHERE user_id = '\(coachee.grant.user.id)'") == before)
        }
    }

    /// The tenant's requests per second are counted as the statement's last step (migration 0028), and a request
    /// over them rolls the whole statement back: no message, no lease, and neither counter moved.
    @Test(arguments: Route.allCases)
    func aRequestOverTheTenantsRequestsPerSecondLeavesNothingBehind(_ route: Route) async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let user = coachee.grant.user.id
            try await hearth.liftLimits()
            try await hearth.admin("UPDATE tenant_limits SET requests_per_second = 1 WHERE tenant_id = '\(tenant.id)'")
            /// A counter's latest window (epoch seconds) and count, if it has a row: the sum of the window's rows, as the
            /// tenant's requests per second are counted in slots (migration 0039).
            func counter(_ name: String) async throws -> (window: Int, used: Int)? {
                let row = try await hearth.adminTexts("""
                    SELECT extract(epoch FROM window_start)::bigint || ' ' || sum(used) FROM rate_windows
                    WHERE tenant_id = '\(tenant.id)' AND name = '\(name)'
                    GROUP BY window_start ORDER BY window_start DESC LIMIT 1
                    """).first
                return row.map { row in
                    let parts = row.split(separator: " ").compactMap { Int($0) }
                    return (parts[0], parts[1])
                }
            }
            // One request a second: the second of a pair is refused unless the clock ticked between them. The pair
            // goes back to back, and what is checked is read before and after it: under load each statement put
            // between the two could take a good part of a second.
            var refused: APIResponse?
            for _ in 0..<50 where refused == nil {
                let messages = try await hearth.adminCount("messages WHERE user_id = '\(user)'")
                let minute = try await counter("requests-per-minute")
                let first = try await client.call(.get, "/v1/me", clientKey: key, token: coachee.token)
                // Counted after the first: it may open its connection's slot of the tenant's counter.
                let counters = try await hearth.adminCount("rate_windows WHERE tenant_id = '\(tenant.id)'")
                let response = try await route.call(client, coachee, key: key, token: coachee.token)
                // The first must open its second: one refused in the last pair's second is counted (the middleware
                // keeps its count), which would be a second request in the counter.
                guard first.status == .ok, response.status == .tooManyRequests else { continue }
                refused = response
                // Only the first of the pair is counted: the tenant's second holds it alone, and the person's minute
                // moved by one (or began with it: the refusal came in the first one's second, so in its minute).
                #expect(try await counter("tenant-requests-per-second")?.used == 1)
                let after = try #require(try await counter("requests-per-minute"))
                #expect(after.used == (after.window == minute?.window ? (minute?.used ?? 0) + 1 : 1))
                #expect(try await hearth.adminCount("rate_windows WHERE tenant_id = '\(tenant.id)'") == counters)
                #expect(try await hearth.adminCount("messages WHERE user_id = '\(user)'") == messages)
                #expect(try await hearth.adminCount("stream_leases WHERE user_id = '\(user)'") == 0)
            }
            let refusal = try #require(refused)
            #expect(refusal.errorCode == "rate_limited")
            #expect(refusal.headers[.rateLimitPolicy] == "\"tenant-requests-per-second\";q=1;w=1")
            #expect(refusal.headers[HTTPField.Name("Retry-After")!] != nil)
        }
    }
}
