import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import Console

/// The console's overview: the PRD's KPIs from a tenant's real records, judged against targets and red flags,
/// the charts, and the platform-wide sum.
@Suite struct ConsoleOverviewTests {
    @Test func thresholdsJudgeBothDirectionsAndNoDataIsNotJudged() {
        #expect(Scorecard.dauOverMau.standing(0.30) == .onTarget)
        #expect(Scorecard.dauOverMau.standing(0.20) == .watch)
        #expect(Scorecard.dauOverMau.standing(0.10) == .redFlag)
        let cost = Scorecard.costPerUser(targetMicros: 2_000_000)
        #expect(cost.standing(1_500_000) == .onTarget && cost.standing(2_500_000) == .watch && cost.standing(3_100_000) == .redFlag)
        #expect(Scorecard.sessionDepth.standing(0.1) == .watch)  // the PRD gives depth no red flag
        let empty = Scorecard(ProductMetrics.Counts(), targetCostMicros: 2_000_000)
        #expect(empty.kpis.allSatisfy { $0.standing == .noData && $0.value == "—" })
    }

    @Test func countsAddUpAcrossTenants() {
        var a = ProductMetrics.Counts()
        a.activeUsers = 2
        a.crisisEvents = ["abuse": 1]
        a.days = ["2026-11-20": .init(actives: 2, costMicros: 10)]
        var b = ProductMetrics.Counts()
        b.activeUsers = 3
        b.crisisEvents = ["abuse": 2, "suicidal": 1]
        b.days = ["2026-11-20": .init(actives: 1, costMicros: 5), "2026-11-21": .init(actives: 1, costMicros: 1)]
        let sum = a + b
        #expect(sum.activeUsers == 5 && sum.crisisEvents == ["abuse": 3, "suicidal": 1])
        #expect(sum.days["2026-11-20"] == .init(actives: 3, costMicros: 15) && sum.days.count == 2)
    }

    @Test func theOverviewShowsATenantsKPIsFromItsRecordsAgainstThePRD() async throws {
        try await UTCDay.awayFromMidnight()
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let (other, otherKey) = try await hearth.createTenant()
        try await hearth.createOperator("viewer@overview.example", role: .viewer, tenantID: tenant.id)
        try await hearth.createOperator("root@overview.example", role: .platformAdmin, tenantID: nil)
        try await hearth.test { client in
            // Three people coached today. Deep: three exchanges in one session today. Brief: one. Crisis: one message that is a crisis.
            let deep = try await Coachee.make(client, key: key)
            let brief = try await Coachee.make(client, key: key)
            let crisis = try await Coachee.make(client, key: key)
            for content in ["I want to prepare for my interview", "What should I ask them?", "Thanks, that helps"] {
                #expect(try await client.call(.post, deep.messagesPath, clientKey: key, token: deep.token, json: ["content": content]).status == .ok)
            }
            #expect(try await client.call(.post, brief.messagesPath, clientKey: key, token: brief.token, json: ["content": "Hello there"]).status == .ok)
            #expect(try await client.call(.post, crisis.messagesPath, clientKey: key, token: crisis.token,
                                          json: ["content": "I want to kill myself tonight"]).status == .ok)
            // Deep and brief joined ten days ago; deep came back on their second day (week-1 retained), brief did not.
            // Deep set up their context; with that earlier day they are a returning person.
            let (deepID, briefID) = (deep.grant.user.id, brief.grant.user.id)
            try await hearth.admin("UPDATE users SET created_at = now() - interval '10 days' WHERE id IN ('\(deepID)', '\(briefID)')")
            try await hearth.admin("""
                INSERT INTO usage_daily (tenant_id, user_id, day, turns, input_tokens, output_tokens, cost_micros)
                VALUES ('\(tenant.id)', '\(deepID)', (now() AT TIME ZONE 'UTC')::date - 8, 2, 10, 10, 0)
                """)
            #expect(try await client.call(.patch, "/v1/me/context", clientKey: key, token: deep.token,
                                          json: ["preferredName": "Dee"]).status == .ok)
            // Someone who joined 20 days ago and came back on their third day: the newest full cohort's week or the one before.
            let cohortMember = try await client.anonymous(clientKey: key)
            try await hearth.admin("UPDATE users SET created_at = now() - interval '20 days' WHERE id = '\(cohortMember.user.id)'")
            try await hearth.admin("""
                INSERT INTO usage_daily (tenant_id, user_id, day, turns, input_tokens, output_tokens, cost_micros)
                VALUES ('\(tenant.id)', '\(cohortMember.user.id)', (now() AT TIME ZONE 'UTC')::date - 17, 1, 10, 10, 0)
                """)
            _ = try await client.anonymous(clientKey: otherKey)

            let viewer = ConsoleBrowser(client)
            try await viewer.signIn("viewer@overview.example")
            #expect(try await viewer.get("/console/tenants/\(tenant.slug)").headers[.location] == "/console/tenants/\(tenant.slug)/overview")
            let page = try await viewer.get("/console/tenants/\(tenant.slug)/overview")
            #expect(page.status == .ok)
            // DAU/MAU: 5 person-days over 28 days among 4 people = 0.18 a day / 4 → 4%, a red flag.
            for shown in [
                #"<div class="tile"><dt>Accounts</dt><dd>4</dd></div>"#,
                #"<div class="tile"><dt>Active in 28 days</dt><dd>4</dd></div>"#,
                #"<div class="tile"><dt>Crisis events</dt><dd>1</dd></div>"#,
                #"<div class="tile bad"><dt>DAU/MAU</dt><dd>4%</dd>"#,
                #"<div class="tile good"><dt>Week-1 retention</dt><dd>67%</dd>"#, "2 of 3 who joined 8–35 days ago",
                #"<div class="tile bad"><dt>Sessions per person per week</dt>"#, "3 sessions by 4 active people",
                #"<div class="tile warn"><dt>Session depth (3+ exchanges)</dt><dd>33%</dd>"#, "1 of 3 sessions",
                #"<div class="tile good"><dt>Context setup rate</dt><dd>100%</dd>"#, "1 of 1 returning people",
                #"<div class="tile bad"><dt>Share/invite rate</dt><dd>0%</dd>"#,
                #"<div class="tile good"><dt>API cost per person this month</dt>"#,
                "<strong>red flag</strong> · target ≥ 25% · red flag &lt; 15%",
                #"aria-label="Daily active people, the last 28 days""#, #"aria-label="Week-1 retention by sign-up week""#,
                "<tr><td>Suicidal ideation</td><td>1</td></tr>", "<tr><td>Abuse</td><td>0</td></tr>",
                "</td><td>1</td><td>1</td><td>100%</td></tr>",  // the cohort member's week
            ] {
                #expect(page.text.contains(shown), "\(shown)")
            }
            #expect(!page.text.contains("kill myself") && !page.text.contains("interview"))
            #expect(try await viewer.get("/console/overview").status == .forbidden)
            #expect(try await viewer.get("/console/tenants/\(other.slug)/overview").status == .notFound)

            let root = ConsoleBrowser(client)
            try await root.signIn("root@overview.example")
            let platform = try await root.get("/console/overview")
            #expect(platform.status == .ok && platform.text.contains("every tenant added up"))
            #expect(platform.text.contains(#"<div class="tile"><dt>Accounts</dt><dd>5</dd></div>"#))
            #expect(platform.text.contains(#"<div class="tile"><dt>Active in 28 days</dt><dd>4</dd></div>"#))
            #expect(try await root.get("/console").text.contains(#"href="/console/overview""#))
        }
    }
}
