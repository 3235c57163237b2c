import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// The console's coaching domains pages: every role reads and tries the router; admins add, edit, disable and
/// roll back, each change a new version in effect on the next message and in the audit log.
@Suite struct ConsoleDomainsTests {
    /// A textarea's text as the browser would submit it.
    static func textarea(_ name: String, in page: APIResponse) throws -> String {
        let match = try #require(page.text.firstMatch(of: try Regex(#"<textarea id="\#(name)"[^>]*>([^<]*)</textarea>"#)))
        let escaped = try #require(match.output[1].substring)
        return String(escaped).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func adminsEditDisableRollBackAndAddDomainsWhileViewersReadAndTryTheRouter() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let (other, _) = try await hearth.createTenant()
        try await hearth.createOperator("viewer@domains.example", role: .viewer, tenantID: tenant.id)
        try await hearth.createOperator("admin@domains.example", role: .tenantAdmin, tenantID: tenant.id)
        try await hearth.test { client in
            let base = "/console/tenants/\(tenant.slug)/domains"
            let viewer = ConsoleBrowser(client)
            try await viewer.signIn("viewer@domains.example")
            let list = try await viewer.get(base)
            #expect(list.status == .ok)
            for key in ["career", "creativity", "fitness", "leadership", "life", "mindset", "relationships"] {
                #expect(list.text.contains(#"<a href="\#(base)/\#(key)"><code>\#(key)</code></a>"#), "\(key)")
            }
            #expect(!list.text.contains("Add a domain"))
            let trial = try await viewer.get("\(base)?sample=I%20have%20a%20job%20interview%20on%20Friday%20and%20I%27m%20nervous")
            #expect(trial.text.contains("Routed to <strong>career</strong>"))
            #expect(trial.text.contains("I have a job interview on Friday and I&#39;m nervous</textarea>"))
            #expect(try await viewer.get("\(base)?sample=\(String(repeating: "a", count: 1001))").status == .unprocessableContent)
            let readOnly = try await viewer.get("\(base)/career")
            #expect(readOnly.status == .ok && readOnly.text.contains(#"<pre class="code">key: career"#) && !readOnly.text.contains(#"name="yaml""#))
            #expect(try await viewer.post("\(base)/career/enabled", [("csrf", try ConsoleBrowser.csrf(in: readOnly)), ("enabled", "false")]).status == .forbidden)
            #expect(try await viewer.get("\(base)/nosuch").status == .notFound)
            #expect(try await viewer.get("/console/tenants/\(other.slug)/domains").status == .notFound)

            let admin = ConsoleBrowser(client)
            try await admin.signIn("admin@domains.example")
            let editor = try await admin.get("\(base)/career")
            let csrf = try ConsoleBrowser.csrf(in: editor)
            let yaml = try Self.textarea("yaml", in: editor)
            #expect(yaml.contains("description: Work and the path through it — job search"))  // written as people write files
            let warmer = yaml.replacingOccurrences(of: "tone: Practical and encouraging;", with: "tone: Warm first, then practical;")
            #expect(warmer != yaml)
            for (path, fields) in [("\(base)/career", [("yaml", warmer)]), (base, [("yaml", warmer)]), ("\(base)/career/enabled", [("enabled", "false")]),
                                   ("\(base)/career/rollback", [("version", "1")])] {
                #expect(try await admin.post(path, fields).status == .forbidden, "\(path)")  // no CSRF token
                #expect(try await admin.post(path, fields + [("csrf", "forged")]).status == .forbidden, "\(path)")
            }
            let saved = try await admin.post("\(base)/career", [("csrf", csrf), ("yaml", warmer)])
            #expect(saved.status == .seeOther && saved.headers[.location] == "\(base)/career?done=saved")
            #expect(try await admin.get("\(base)/career?done=saved").text.contains("Saved as a new version."))
            #expect(try await admin.post("\(base)/career", [("csrf", csrf), ("yaml", warmer)]).headers[.location] == "\(base)/career?done=unchanged")
            let empty = try await admin.post("\(base)/career", [("csrf", csrf), ("yaml", warmer.replacingOccurrences(of: "tone: Warm first, then practical;", with: "tone: ''\nx:"))])
            #expect(empty.status == .unprocessableContent && empty.text.contains("tone is empty"))
            let renamed = try await admin.post("\(base)/career", [("csrf", csrf), ("yaml", warmer.replacingOccurrences(of: "key: career", with: "key: work"))])
            #expect(renamed.status == .unprocessableContent && renamed.text.contains("The key cannot change"))
            #expect(try await hearth.adminCount("domain_versions WHERE tenant_id = '\(tenant.id)' AND key = 'career'") == 2)
            #expect(try await hearth.adminCount("""
                domain_versions WHERE tenant_id = '\(tenant.id)' AND key = 'career' AND version = 2 AND source = 'console'
                AND author = 'admin@domains.example' AND definition->>'tone' LIKE 'Warm first%'
                """) == 1)

            // Disabled: the router and the app's domain list leave it; enabled again by rolling back to version 1.
            #expect(try await admin.post("\(base)/career/enabled", [("csrf", csrf), ("enabled", "maybe")]).status == .unprocessableContent)
            #expect(try await admin.post("\(base)/career/enabled", [("csrf", csrf), ("enabled", "false")]).headers[.location] == "\(base)/career?done=disabled")
            #expect(!(try await admin.get("\(base)?sample=I%20have%20a%20job%20interview%20on%20Friday").text.contains("Routed to <strong>career</strong>")))
            let app = try await client.anonymous(clientKey: key)
            let domains = try await client.call(.get, "/v1/domains", clientKey: key, token: app.accessToken)
            #expect(!((domains["domains"] as? [[String: Any]])?.contains { $0["key"] as? String == "career" } ?? true))
            let history = try await admin.get("\(base)/career")
            #expect(history.text.contains("<strong>Disabled</strong>") && history.text.contains("Roll back to 1"))
            #expect(try await admin.get("\(base)/career?version=1").text.contains("tone: Practical and encouraging;"))
            #expect(try await admin.post("\(base)/career/rollback", [("csrf", csrf), ("version", "9")]).status == .notFound)
            #expect(try await admin.post("\(base)/career/rollback", [("csrf", csrf), ("version", "1")]).headers[.location] == "\(base)/career?done=rolled-back")
            #expect(try await hearth.adminCount("""
                domain_versions WHERE tenant_id = '\(tenant.id)' AND key = 'career' AND version = 4 AND source = 'rollback'
                AND definition->>'tone' LIKE 'Practical and encouraging%' AND (definition->>'enabled')::boolean
                """) == 1)
            #expect(try await admin.get("\(base)?sample=I%20have%20a%20job%20interview%20on%20Friday").text.contains("Routed to <strong>career</strong>"))

            // An eighth domain, from the form alone.
            let new = try await admin.get("\(base)/new")
            #expect(new.status == .ok && new.text.contains("key: wellbeing"))
            let sleep = """
                key: sleep
                name: Sleep
                description: Rest and the habits around it — bedtimes, waking at night, naps and winding down.
                tone: Calm and unhurried.
                methodology: Look at the person's evenings and nights as they are, then change one habit at a time.
                personality: A gentle sleep coach.
                opening_style: Ask how last night went.
                router:
                  keywords:
                    3: [insomnia, sleep, sleeping, bedtime, nightmares]
                  samples:
                    - I keep waking up at 3am and can't get back to sleep
                """
            let added = try await admin.post(base, [("csrf", csrf), ("yaml", sleep)])
            #expect(added.status == .seeOther && added.headers[.location] == "\(base)/sleep?done=added")
            #expect(try await admin.post(base, [("csrf", csrf), ("yaml", sleep)]).status == .conflict)
            #expect(try await admin.post(base, [("csrf", csrf), ("yaml", "key: [")]).status == .unprocessableContent)
            #expect(try await admin.get("\(base)?sample=I%20have%20insomnia%20again").text.contains("Routed to <strong>sleep</strong>"))

            let audit = try await admin.get("/console/tenants/\(tenant.slug)/audit")
            for entry in ["domain.save", "career v2", "career v3 (disabled)", "domain.rollback", "career to v1 as v4", "sleep v1"] {
                #expect(audit.text.contains(entry), "\(entry)")
            }
        }
    }
}
