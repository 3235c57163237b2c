import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// The operator console's pages and forms, as a browser uses them: sign-in with a session cookie, CSRF on every
/// form, role checks on every page and change, the audit log, and the App Store settings form.
@Suite struct ConsoleTests {
    @Test func signingInSetsAStrictSessionCookieAndSigningOutEndsTheSession() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        try await hearth.createOperator("admin@console.example", role: .tenantAdmin, tenantID: tenant.id)
        try await hearth.test { client in
            let browser = ConsoleBrowser(client)
            let away = try await browser.get("/console")
            #expect(away.status == .seeOther && away.headers[.location] == "/console/sign-in")

            let form = try await browser.get("/console/sign-in")
            #expect(form.status == .ok && form.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(form.text.contains(#"<label for="email">Email</label>"#) && form.text.contains(#"autocomplete="current-password""#))
            let signInCookie = try #require(ConsoleBrowser.setCookie("hearth_console_signin", in: form))
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/console"] { #expect(signInCookie.contains(attribute), "\(attribute)") }

            // A sign-in posted from elsewhere (no double-submit cookie) is refused even with the right password.
            let elsewhere = ConsoleBrowser(client)
            let forged = try await elsewhere.post("/console/sign-in", [("csrf", try ConsoleBrowser.csrf(in: form)), ("email", "admin@console.example"),
                                                                      ("password", "operator-passphrase-1")])
            #expect(forged.status == .forbidden && ConsoleBrowser.setCookie("hearth_console", in: forged) == nil)

            let wrong = try await browser.signIn("admin@console.example", password: "not the password")
            #expect(wrong.status == .unauthorized && wrong.text.contains("do not match"))
            let signedIn = try await browser.signIn("admin@console.example")
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/console")
            let session = try #require(ConsoleBrowser.setCookie("hearth_console", in: signedIn))
            for attribute in ["hearth_console=hos_", "HttpOnly", "Secure", "SameSite=Strict", "Path=/console", "Max-Age=43200"] {
                #expect(session.contains(attribute), "\(attribute)")
            }
            let home = try await browser.get("/console")
            #expect(home.status == .ok && home.text.contains("admin@console.example") && home.text.contains("/console/tenants/\(tenant.slug)/overview"))
            #expect(home.headers[.cacheControl] == "no-store")

            // Sign-out is a form like any other: without the token it is refused and the session lives on.
            #expect(try await browser.post("/console/sign-out", [("csrf", "forged")]).status == .forbidden)
            #expect(try await browser.get("/console").status == .ok)
            let out = try await browser.post("/console/sign-out", [("csrf", try ConsoleBrowser.csrf(in: home))])
            #expect(out.status == .seeOther && out.headers[.location] == "/console/sign-in")
            #expect(try await hearth.adminCount("operator_sessions WHERE revoked_at IS NOT NULL") == 1)
            #expect(try await browser.get("/console").status == .seeOther)
        }
    }

    @Test func repeatedFailuresLockTheAccountAndTheLockIsShownOnThePage() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.createOperator("locked@console.example", role: .platformAdmin, tenantID: nil)
        try await hearth.test { client in
            let browser = ConsoleBrowser(client)
            for _ in 0..<5 {
                #expect(try await browser.signIn("locked@console.example", password: "guess").status == .unauthorized)
            }
            let locked = try await browser.signIn("locked@console.example")
            #expect(locked.status == .tooManyRequests && locked.headers[HTTPField.Name("Retry-After")!] != nil)
            #expect(locked.text.contains("locked"))
        }
    }

    @Test func theBillingPageChecksRolesAndCSRFAndAuditsEveryChange() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let (other, _) = try await hearth.createTenant()
        try await hearth.createOperator("admin@billing.example", role: .tenantAdmin, tenantID: tenant.id)
        try await hearth.createOperator("viewer@billing.example", role: .viewer, tenantID: tenant.id)
        let ca = try AppStoreTestCA()
        let pem = ca.rootPEM
        try await hearth.test { client in
            let billing = "/console/tenants/\(tenant.slug)/billing"
            let viewer = ConsoleBrowser(client)
            try await viewer.signIn("viewer@billing.example")
            let readOnly = try await viewer.get(billing)
            #expect(readOnly.status == .ok && readOnly.text.contains("<fieldset disabled>") && !readOnly.text.contains("Save plan"))
            #expect(readOnly.text.contains("Not configured yet"))
            let refused = try await viewer.post("\(billing)/limits", [("csrf", try ConsoleBrowser.csrf(in: readOnly)), ("requestsPerSecond", "5"),
                                                                      ("signupsPerHour", "5"), ("loginsPerMinute", "5")])
            #expect(refused.status == .forbidden && refused.text.contains("viewer"))
            #expect(try await viewer.get("/console/tenants/\(other.slug)/billing").status == .notFound)

            let admin = ConsoleBrowser(client)
            try await admin.signIn("admin@billing.example")
            let page = try await admin.get(billing)
            #expect(page.text.contains("Save plan premium") && page.text.contains(#"<label for="bundle">Bundle id</label>"#))
            let csrf = try ConsoleBrowser.csrf(in: page)
            let appStore: [(String, String)] = [("bundleId", "com.example.coach"), ("appAppleId", ""), ("environments[]", "Sandbox"),
                                                ("rootCertificates", pem)]
            #expect(try await admin.post("\(billing)/app-store", appStore).status == .forbidden)  // no token
            #expect(try await admin.post("\(billing)/app-store", [("csrf", try ConsoleBrowser.csrf(in: readOnly))] + appStore).status == .forbidden)

            let production = try await admin.post("\(billing)/app-store", [("csrf", csrf), ("bundleId", "com.example.coach"),
                                                                           ("environments[]", "Production")])
            #expect(production.status == .unprocessableContent && production.text.contains("appAppleId"))
            let saved = try await admin.post("\(billing)/app-store", [("csrf", csrf)] + appStore)
            #expect(saved.status == .seeOther && saved.headers[.location] == "\(billing)?saved=app-store")
            let after = try await admin.get("\(billing)?saved=app-store")
            #expect(after.text.contains("The App Store settings are saved.") && after.text.contains("1 of the tenant&#39;s own"))
            #expect(after.text.contains(#"value="Sandbox" checked"#) && !after.text.contains(#"value="Production" checked"#))

            // The same settings through the operator API, and the verifier built from them trusts the test CA.
            let token = try await client.operatorToken("admin@billing.example")
            let api = try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/billing/app-store", token: token)
            #expect(api["bundleId"] as? String == "com.example.coach" && api["rootCertificates"] as? [String] == [ca.rootDER.base64EncodedString()])

            let plan = try await admin.post("\(billing)/plans/premium", [
                ("csrf", csrf), ("name", "Premium"), ("productIds", "com.example.coach.monthly com.example.coach.yearly"),
                ("requestsPerMinute", "90"), ("tokensPerDay", "150000"), ("concurrentStreams", "2"), ("monthlyBudget", "3.50"),
                ("economyAtPercent", "75"),
            ])
            #expect(plan.status == .seeOther)
            let plans = try await client.call(.get, "/operator/v1/tenants/\(tenant.slug)/billing", token: token)["plans"] as? [[String: Any]]
            let premium = try #require(plans?.first { $0["code"] as? String == "premium" })
            #expect(premium["monthlyBudgetMicros"] as? Int == 3_500_000 && premium["productIds"] as? [String] == ["com.example.coach.monthly", "com.example.coach.yearly"])
            let badNumber = try await admin.post("\(billing)/limits", [("csrf", csrf), ("requestsPerSecond", "lots"), ("signupsPerHour", "5"),
                                                                       ("loginsPerMinute", "5")])
            #expect(badNumber.status == .unprocessableContent && badNumber.text.contains("Requests per second must be a whole number."))

            let audit = try await admin.get("/console/tenants/\(tenant.slug)/audit")
            #expect(audit.status == .ok && audit.text.contains("appstore.settings") && audit.text.contains("plan.save"))
            #expect(audit.text.contains("admin@billing.example") && !audit.text.contains("limits.save"))
            #expect(try await hearth.adminCount("audit_log WHERE tenant_id = '\(tenant.id)'") == 2)
        }
    }

    @Test func whoIsLimitedNowIsListed() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.createOperator("ops@limited.example", role: .viewer, tenantID: tenant.id)
        try await hearth.test { client in
            let person = try await client.anonymous(clientKey: key)
            try await hearth.admin("""
                INSERT INTO rate_windows (tenant_id, name, subject, window_start, window_seconds, quota, used) VALUES
                ('\(tenant.id)', 'requests-per-minute', '\(person.user.id.uuidString.lowercased())', now(), 60, 60, 75),
                ('\(tenant.id)', 'requests-per-minute', 'someone-under', now(), 60, 60, 12),
                ('\(tenant.id)', 'signups-per-hour', 'abc123hash', now() - interval '2 hours', 3600, 20, 40)
                """)
            let browser = ConsoleBrowser(client)
            try await browser.signIn("ops@limited.example")
            let page = try await browser.get("/console/tenants/\(tenant.slug)/billing")
            #expect(page.text.contains("<td><code>requests-per-minute</code></td><td>\(person.user.id.uuidString.lowercased())</td><td>75</td><td>60</td>"))
            #expect(!page.text.contains("someone-under") && !page.text.contains("signups-per-hour"))  // under quota; window over
            // The tenant's requests per second, counted in slots (migration 0039), are one line with their sum. Their window
            // is a second, so the rows are written again until the page is read within the same one.
            let tenantLine = "<td><code>tenant-requests-per-second</code></td><td>tenant</td><td>4</td><td>3</td>"
            var listed = false
            for _ in 0..<20 where !listed {
                try await hearth.admin("DELETE FROM rate_windows WHERE tenant_id = '\(tenant.id)' AND name = 'tenant-requests-per-second'")
                try await hearth.admin("""
                    INSERT INTO rate_windows (tenant_id, name, subject, window_start, window_seconds, quota, used)
                    SELECT '\(tenant.id)', 'tenant-requests-per-second', slot, to_timestamp(floor(extract(epoch FROM now()))), 1, 3, 2
                    FROM unnest(ARRAY['4', '9']) slot
                    """)
                listed = try await browser.get("/console/tenants/\(tenant.slug)/billing").text.contains(tenantLine)
            }
            #expect(listed)
        }
    }

    @Test func namesAreEscapedAndUnknownPagesAnswerInTheConsolesFrame() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant(name: "<script>alert(1)</script> Coach")
        try await hearth.createOperator("root@console.example", role: .platformAdmin, tenantID: nil)
        try await hearth.test { client in
            let browser = ConsoleBrowser(client)
            try await browser.signIn("root@console.example")
            let home = try await browser.get("/console")
            #expect(home.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; Coach") && !home.text.contains("<script>"))
            #expect(home.text.contains(tenant.slug))
            let missing = try await browser.get("/console/tenants/no-such-tenant/billing")
            #expect(missing.status == .notFound && missing.text.contains("Back to the console"))
        }
    }
}
