import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// The console's costs and users pages: what a tenant spends, and support for one person — never their
/// conversations.
@Suite struct ConsoleSupportTests {
    @Test func costsShowPerDayModelAndPersonAgainstTheTargetAndDownloadAsCSV() async throws {
        try await UTCDay.awayFromMidnight()
        let hearth = try await TestHearth.make()
        try await withMockLLM(.init(responseTokens: 12)) { _, port in
            let (tenant, key) = try await hearth.createTenant()
            let (other, _) = try await hearth.createTenant()
            try await hearth.useMock(tenant, port: port)
            try await hearth.createOperator("viewer@costs.example", role: .viewer, tenantID: tenant.id)
            try await hearth.test { client in
                let heavy = try await Coachee.make(client, key: key)
                let light = try await Coachee.make(client, key: key)
                for turn in 0..<3 {
                    #expect(try await client.call(.post, heavy.messagesPath, clientKey: key, token: heavy.token,
                                                  json: ["content": "My secret worry number \(turn)"]).status == .ok)
                }
                #expect(try await client.call(.post, light.messagesPath, clientKey: key, token: light.token,
                                              json: ["content": "Just one question"]).status == .ok)
                // Real spend is fractions of a cent per turn: make the heavy user's day
                // cost $5.00: $2.50 per active person, over the $2.00 target.
                try await hearth.admin("UPDATE usage_daily SET cost_micros = 5000000 WHERE user_id = '\(heavy.grant.user.id)'")

                let browser = ConsoleBrowser(client)
                try await browser.signIn("viewer@costs.example")
                let costs = "/console/tenants/\(tenant.slug)/costs"
                let page = try await browser.get(costs)
                #expect(page.status == .ok)
                #expect(page.text.contains(#"<svg viewBox="0 0 640 180" role="img" aria-label="Cost per day, the last 30 days">"#))
                #expect(page.text.contains(#"<div class="tile bad"><dt>Cost per active person</dt><dd>$2.50</dd>"#) && page.text.contains("target $2.00: over target"))
                #expect(page.text.contains("<code>gpt-4o-mini</code>") && page.text.contains("<td>openai</td>"))
                let heavyID = heavy.grant.user.id.uuidString.lowercased()
                #expect(page.text.contains(#"<a href="/console/tenants/\#(tenant.slug)/users/\#(heavyID)">"#))
                #expect(!page.text.contains("secret worry"))
                #expect(try await browser.get("\(costs)?days=7").text.contains(#"<a href="?days=7" aria-current="page">"#))
                #expect(try await browser.get("\(costs)?days=0").status == .unprocessableContent)
                #expect(try await browser.get("/console/tenants/\(other.slug)/costs").status == .notFound)

                let csv = try await browser.get("\(costs).csv?days=7")
                #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(csv.headers[.contentDisposition] == #"attachment; filename="\#(tenant.slug)-costs-7d.csv""#)
                let rows = csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.split(separator: ",").map(String.init) }
                #expect(rows.first == ["day", "cost_usd", "turns", "active_users", "input_tokens", "output_tokens"])
                #expect(rows.count == 8)  // the header and a row for every day, with usage or not
                let today = try #require(rows.last)
                #expect(Double(today[1])! >= 5 && today[2] == "4" && today[3] == "2")
                #expect(rows.dropFirst().dropLast().allSatisfy { $0[1] == "0.00" && $0[2] == "0" })
            }
        }
    }

    @Test func supportFindsAPersonByIdOrEmailSeesTheirStateAndDeletesOnRequest() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let (other, otherKey) = try await hearth.createTenant()
        try await hearth.createOperator("viewer@users.example", role: .viewer, tenantID: tenant.id)
        try await hearth.createOperator("admin@users.example", role: .tenantAdmin, tenantID: tenant.id)
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let signUp = try await client.call(.post, "/v1/auth/email/signup", clientKey: key, token: coachee.token,
                                               json: ["email": "Sam.Support@example.com", "password": "a long enough password"])
            #expect(signUp.status == .ok || signUp.status == .created)
            let token = try #require(signUp["accessToken"] as? String)
            #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: token,
                                          json: ["content": "Something private about my sister"]).status == .ok)
            let stranger = try await client.anonymous(clientKey: otherKey)
            let id = coachee.grant.user.id.uuidString.lowercased()
            let users = "/console/tenants/\(tenant.slug)/users"

            let viewer = ConsoleBrowser(client)
            try await viewer.signIn("viewer@users.example")
            #expect(try await viewer.get(users).text.contains(#"<label for="q">User id or email address</label>"#))
            let byEmail = try await viewer.get("\(users)?q=sam.support%40example.com")
            #expect(byEmail.status == .seeOther && byEmail.headers[.location] == "\(users)/\(id)")
            #expect(try await viewer.get("\(users)?q=\(id.uppercased())").headers[.location] == "\(users)/\(id)")
            let strangerSearch = try await viewer.get("\(users)?q=\(stranger.user.id)")
            #expect(strangerSearch.status == .notFound && strangerSearch.text.contains("No one in"))
            #expect(try await viewer.get("\(users)?q=sam").status == .unprocessableContent)
            #expect(try await viewer.get("\(users)/\(stranger.user.id)").status == .notFound)
            #expect(try await viewer.get("/console/tenants/\(other.slug)/users").status == .notFound)

            // Windows are aligned to the clock's minutes: under load the send's could end before the page is read.
            try await hearth.admin("UPDATE rate_windows SET window_start = now() WHERE subject = '\(id)' AND name = 'requests-per-minute'")
            let person = try await viewer.get("\(users)/\(id)")
            #expect(person.status == .ok)
            for shown in ["<code>\(id)</code>", "sam.support@example.com", "email", "<code>trial</code> — can be coached now",
                          "Tokens today", "<code>requests-per-minute</code>", "Usage records, newest first", "<td>completed</td>"] {
                #expect(person.text.contains(shown), "\(shown)")
            }
            #expect(!person.text.contains("sister") && !person.text.contains("Delete this account"))
            let forbidden = try await viewer.post("\(users)/\(id)/delete", [("csrf", try ConsoleBrowser.csrf(in: person)), ("confirm", "delete")])
            #expect(forbidden.status == .forbidden)

            let admin = ConsoleBrowser(client)
            try await admin.signIn("admin@users.example")
            let page = try await admin.get("\(users)/\(id)")
            #expect(page.text.contains("Delete this account"))
            let csrf = try ConsoleBrowser.csrf(in: page)
            #expect(try await admin.post("\(users)/\(id)/delete", [("confirm", "delete")]).status == .forbidden)
            let unconfirmed = try await admin.post("\(users)/\(id)/delete", [("csrf", csrf), ("confirm", "yes")])
            #expect(unconfirmed.status == .unprocessableContent && unconfirmed.text.contains("Type delete"))
            #expect(try await hearth.adminCount("users WHERE id = '\(id)'") == 1)
            let deleted = try await admin.post("\(users)/\(id)/delete", [("csrf", csrf), ("confirm", "delete")])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "\(users)?deleted=1")
            #expect(try await hearth.adminCount("users WHERE id = '\(id)'") == 0)
            #expect(try await hearth.adminCount("messages WHERE user_id = '\(id)'") == 0)
            #expect(try await hearth.adminCount("audit_log WHERE action = 'user.delete' AND detail = 'user \(id)'") == 1)
            #expect(try await admin.get("\(users)?deleted=1").text.contains("The account and everything it owned are deleted."))
            #expect(try await admin.get("\(users)/\(id)").status == .notFound)
        }
    }
}
