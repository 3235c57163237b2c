import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import MockLLM
import Testing

/// Budgets and cost (FR42): a person nearing their plan's monthly budget is answered by the tenant's economy
/// model, and at the cap coaching answers `budget_exhausted`; costs per day, model and person are visible at once.
@Suite struct BudgetTests {
    @Test func nearingTheBudgetSwitchesToTheEconomyModelAndTheCapRefusesUntilTheMonthEnds() async throws {
        let hearth = try await TestHearth.make()
        try await withMockLLM(.init(responseTokens: 20)) { mock, port in
            let (tenant, key) = try await hearth.createTenant()
            try await hearth.useMock(tenant, port: port, model: "gpt-4o")
            try await hearth.test { client in
                let admin = try await adminToken(hearth, client, tenant: tenant)
                #expect(try await client.call(.put, "/operator/v1/tenants/\(tenant.slug)/billing/settings", token: admin, json: [
                    "trialDays": 7, "targetCostMicros": 2_000_000, "economyModel": "gpt-4o-mini",
                ]).status == .ok)
                let person = try await Coachee.make(client, key: key)
                let first = try await client.coach(person)
                #expect(first.status == .ok)
                let firstCost = try #require((first["usage"] as? [String: Any])?["costMicros"] as? Int)
                #expect(firstCost > 0)
                #expect((first["assistantMessage"] as? [String: Any])?["model"] as? String == "gpt-4o")

                // A budget the first answer used 60% of: past the 50% mark the economy model answers.
                let budget = firstCost * 100 / 60
                #expect(try await client.savePlan(tenant, token: admin, monthlyBudgetMicros: budget, economyAtPercent: 50).status == .ok)
                let second = try await client.coach(person, "What would a first step look like?")
                #expect(second.status == .ok)
                #expect((second["assistantMessage"] as? [String: Any])?["model"] as? String == "gpt-4o-mini")
                #expect(mock.requestCount == 2)

                // Spent up to the budget, the next message is refused with the wait until the month ends.
                try await hearth.admin("UPDATE usage_daily SET cost_micros = \(budget)")
                let capped = try await client.coach(person, "One more thing?")
                #expect(capped.status == .tooManyRequests && capped.errorCode == "budget_exhausted")
                let wait = try #require(capped.headers[retryAfterField].flatMap(Int.init))
                #expect((1...(31 * 86_400)).contains(wait))
                #expect(capped.headers[.rateLimitPolicy] == "\"monthly-budget\";q=\(budget)")
                #expect(mock.requestCount == 2)
                #expect(try await hearth.adminCount("messages WHERE thread_id = '\(person.threadID)'") == 4)
                // A bigger budget applies at once.
                #expect(try await client.savePlan(tenant, token: admin, monthlyBudgetMicros: budget * 10).status == .ok)
                #expect(try await client.coach(person, "One more thing?").status == .ok)
            }
        }
    }

    @Test func costsPerDayModelAndPersonAreReadFromTheUsageRecordsWithoutAnyContent() async throws {
        try await UTCDay.awayFromMidnight()
        let hearth = try await TestHearth.make()
        try await withMockLLM(.init(responseTokens: 12)) { _, port in
            let (tenant, key) = try await hearth.createTenant()
            let (other, _) = try await hearth.createTenant()
            try await hearth.useMock(tenant, port: port)
            try await hearth.createOperator("viewer@\(tenant.slug).example", role: .viewer, tenantID: tenant.id)
            try await hearth.createOperator("viewer@\(other.slug).example", role: .viewer, tenantID: other.id)
            try await hearth.test { client in
                let heavy = try await Coachee.make(client, key: key)
                let light = try await Coachee.make(client, key: key)
                for turn in 0..<3 { #expect(try await client.coach(heavy, "My secret worry number \(turn)").status == .ok) }
                #expect(try await client.coach(light, "Just one question").status == .ok)

                let viewer = try await client.operatorToken("viewer@\(tenant.slug).example")
                let costs = try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/costs?days=7", token: viewer)
                #expect(costs.status == .ok)
                let recorded = try #require(try await hearth.adminString(
                    "SELECT sum(cost_micros)::text FROM usage_records WHERE tenant_id = '\(tenant.id)'").flatMap(Int.init))
                let month = try #require(costs["month"] as? [String: Any])
                #expect(month["costMicros"] as? Int == recorded && month["activeUsers"] as? Int == 2)
                #expect(month["costPerUserMicros"] as? Int == recorded / 2 && month["targetCostMicros"] as? Int == 2_000_000)
                #expect(month["overTarget"] as? Bool == false)
                let days = try #require(costs["days"] as? [[String: Any]])
                #expect(days.count == 1 && days[0]["turns"] as? Int == 4 && days[0]["users"] as? Int == 2 && days[0]["costMicros"] as? Int == recorded)
                let models = try #require(costs["models"] as? [[String: Any]])
                #expect(models.count == 1 && models[0]["model"] as? String == "gpt-4o-mini" && models[0]["turns"] as? Int == 4)
                let top = try #require(costs["topUsers"] as? [[String: Any]])
                #expect(top.first?["userId"] as? String == heavy.grant.user.id.uuidString)
                #expect(top.first?["turns"] as? Int == 3 && top.count == 2)

                let usage = try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/users/\(heavy.grant.user.id)/usage", token: viewer)
                #expect(usage.status == .ok)
                #expect((usage["records"] as? [[String: Any]])?.count == 3)
                #expect((usage["subscription"] as? [String: Any])?["status"] as? String == "trial")
                #expect(!usage.text.contains("secret worry") && !costs.text.contains("secret worry"))
                #expect(try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/users/\(UUID())/usage", token: viewer).status == .notFound)
                #expect(try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/costs?days=0", token: viewer).status == .unprocessableContent)
                // Another tenant's staff see nothing of it.
                let outsider = try await client.operatorToken("viewer@\(other.slug).example")
                #expect(try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/costs", token: outsider).status == .notFound)
                let theirs = try await client.call(.get, "/operator/v1/tenants/\(other.slug)/costs", token: outsider)
                #expect((theirs["month"] as? [String: Any])?["costMicros"] as? Int == 0)
                #expect(try await client.call(.get, "/operator/v1/tenants/\(other.slug)/users/\(heavy.grant.user.id)/usage", token: outsider).status == .notFound)
            }
        }
    }
}
