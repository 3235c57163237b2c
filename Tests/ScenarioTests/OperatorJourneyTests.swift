import Foundation
import HearthPlatform
import HTTPTypes
import HearthTestSupport
import HummingbirdTesting
import MockLLM
import Testing

/// Journey 5 — Sumanth, the solo operator, in launch week. People coach; one power user opens 47 sessions in
/// three days. Sumanth sees the costs per day and per person through the operator API, finds the power user at
/// the top, looks at their usage (never their words) and caps tokens per day on the trial plan — without a
/// restart. The next day the power user reaches the cap after a handful of sessions and is told when to come back;
/// everyone else coaches on; raising the cap lets the power user straight back in.
@Suite struct OperatorJourneyTests {
    @Test func sumanthFindsThePowerUserInTheCostsAndLimitsTheirSessions() async throws {
        try await UTCDay.awayFromMidnight()
        let hearth = try await TestHearth.make()
        try await withMockLLM(.init(responseTokens: 30)) { _, port in
            let (tenant, key) = try await hearth.createTenant("coach-app")
            try await hearth.useMock(tenant, port: port)
            try await hearth.createOperator("sumanth@coach.example", role: .tenantAdmin, tenantID: tenant.id)
            try await hearth.test { client in
                let sumanth = try await client.operatorToken("sumanth@coach.example")
                let plans = "/operator/v1/tenants/coach-app/billing/plans"
                func trialPlan(tokensPerDay: Int) async throws -> Int {
                    let saved = try await client.call(.put, "\(plans)/trial", token: sumanth, json: [
                        "name": "Free trial", "requestsPerMinute": 1000, "tokensPerDay": tokensPerDay, "concurrentStreams": 2,
                        "monthlyBudgetMicros": 5_000_000,
                    ])
                    return Int(saved.status.code)
                }
                #expect(try await trialPlan(tokensPerDay: 10_000_000) == 200)  // launch week: generous

                // Three ordinary people, one session each; the power user: 16, 16 and 15 sessions on three days.
                var ordinary: [Coachee] = []
                for _ in 0..<3 {
                    let person = try await Coachee.make(client, key: key)
                    #expect(try await client.coach(person, "How do I get better at saying no?").status == .ok)
                    ordinary.append(person)
                }
                let power = try await Coachee.make(client, key: key)
                for (day, sessions) in [16, 16, 15].enumerated() {
                    for session in 0..<sessions {
                        let thread = session == 0 && day == 0 ? power : try await power.newThread(client)
                        #expect(try await client.coach(thread, "Session \(session): what should I focus on today?").status == .ok)
                    }
                    if day < 2 { try await nextDay(for: power, in: hearth) }
                }

                // Sumanth opens the costs: three days of usage, the power user on top with 47 sessions.
                let costs = try await client.call(.get, "/operator/v1/tenants/coach-app/costs?days=7", token: sumanth)
                #expect(costs.status == .ok)
                let days = try #require(costs["days"] as? [[String: Any]])
                #expect(days.compactMap { $0["turns"] as? Int } == [18, 16, 16])  // today: 15 + the three others
                #expect(days.allSatisfy { ($0["costMicros"] as? Int ?? 0) > 0 })
                let top = try #require((costs["topUsers"] as? [[String: Any]])?.first)
                #expect(top["userId"] as? String == power.grant.user.id.uuidString && top["turns"] as? Int == 47)
                let month = try #require(costs["month"] as? [String: Any])
                #expect(month["activeUsers"] as? Int == 4 && month["targetCostMicros"] as? Int == 2_000_000)

                // His usage, never his words.
                let usage = try await client.call(.get, "/operator/v1/tenants/coach-app/users/\(power.grant.user.id)/usage", token: sumanth)
                let records = try #require(usage["records"] as? [[String: Any]])
                #expect(records.count == 47 && !usage.text.contains("focus on today"))
                let tokens = records.reduce(0) { $0 + ($1["inputTokens"] as? Int ?? 0) + ($1["outputTokens"] as? Int ?? 0) }

                // About five sessions' worth of tokens a day on the trial plan, applied without a restart.
                let perSession = tokens / 47
                #expect(try await trialPlan(tokensPerDay: perSession * 5) == 200)
                try await nextDay(for: power, in: hearth)

                var allowed = 0
                var refusal: APIResponse?
                while refusal == nil && allowed < 20 {
                    let thread = try await power.newThread(client)
                    let response = try await client.coach(thread, "Another session, please.")
                    if response.status == .ok { allowed += 1 } else { refusal = response }
                }
                #expect((4...7).contains(allowed))
                let refused = try #require(refusal)
                #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited")
                #expect(refused.headers[HTTPField.Name("RateLimit-Policy")!] == "\"tokens-per-day\";q=\(perSession * 5);w=86400")
                #expect(refused.headers[HTTPField.Name("Retry-After")!].flatMap(Int.init).map { (1...86_400).contains($0) } == true)
                // Everyone else coaches on.
                #expect(try await client.coach(ordinary[0], "Quick check-in.").status == .ok)
                // Sumanth raises the cap: the power user is straight back in.
                #expect(try await trialPlan(tokensPerDay: perSession * 50) == 200)
                #expect(try await client.coach(power, "Thanks for letting me back.").status == .ok)
            }
        }
    }

    /// The clock moves on a day for this person: their usage so far, records and daily sums, moves a day into the
    /// past. (The daily sums go through a far-off date so that no two of a person's days collide on the way.)
    private func nextDay(for person: Coachee, in hearth: TestHearth) async throws {
        let user = person.grant.user.id
        try await hearth.admin("UPDATE usage_records SET created_at = created_at - interval '1 day' WHERE user_id = '\(user)'")
        try await hearth.admin("UPDATE usage_daily SET day = day - 1001 WHERE user_id = '\(user)'")
        try await hearth.admin("UPDATE usage_daily SET day = day + 1000 WHERE user_id = '\(user)'")
    }
}

extension TestClientProtocol {
    fileprivate func coach(_ coachee: Coachee, _ content: String) async throws -> APIResponse {
        try await call(.post, coachee.messagesPath, clientKey: coachee.key, token: coachee.token, json: ["content": content])
    }
}
