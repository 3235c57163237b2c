import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// The console's tenant pages (platform admins only): creating a tenant, its settings, its model, its crisis
/// resources and rotating its client keys — each taking effect for the tenant's apps, each in the audit log.
@Suite struct ConsoleTenantsTests {
    @Test func platformAdminsCreateATenantSetItsModelResourcesAndSettingsAndRotateItsKeys() async throws {
        // Keys are remembered for five minutes here: what takes effect at once does so because the console forgets them.
        let hearth = try await TestHearth.make { $0.tenantCacheTTL = .seconds(300) }
        try await withMockLLM(.init(responseTokens: 6)) { _, mockPort in
            let (existing, _) = try await hearth.createTenant()
            try await hearth.createOperator("root@tenants.example", role: .platformAdmin, tenantID: nil)
            try await hearth.createOperator("admin@tenants.example", role: .tenantAdmin, tenantID: existing.id)
            try await hearth.test { client in
                let admin = ConsoleBrowser(client)
                try await admin.signIn("admin@tenants.example")
                let adminPage = try await admin.get("/console/tenants/\(existing.slug)/overview")
                #expect(!adminPage.text.contains("/settings\">Settings</a>"))
                #expect(try await admin.get("/console/tenants/\(existing.slug)/settings").status == .forbidden)
                #expect(try await admin.get("/console/tenants/new").status == .forbidden)
                #expect(try await admin.post("/console/tenants", [("csrf", try ConsoleBrowser.csrf(in: adminPage)), ("slug", "x-coach"), ("name", "X")])
                    .status == .forbidden)

                let root = ConsoleBrowser(client)
                try await root.signIn("root@tenants.example")
                let form = try await root.get("/console/tenants/new")
                let csrf = try ConsoleBrowser.csrf(in: form)
                #expect(try await root.post("/console/tenants", [("slug", "calm-coach"), ("name", "Calm")]).status == .forbidden)
                let badSlug = try await root.post("/console/tenants", [("csrf", csrf), ("slug", "Calm Coach!"), ("name", "Calm")])
                #expect(badSlug.status == .unprocessableContent && badSlug.text.contains("Tenant slug must be"))
                let created = try await root.post("/console/tenants", [("csrf", csrf), ("slug", "calm-coach"), ("name", "Calm <Coach>")])
                #expect(created.status == .seeOther && created.headers[.location] == "/console/tenants/calm-coach/settings?done=created")
                #expect(try await root.post("/console/tenants", [("csrf", csrf), ("slug", "calm-coach"), ("name", "Again")]).status == .conflict)
                #expect(try await root.post("/console/tenants", [("csrf", csrf), ("slug", "new"), ("name", "New")]).status == .unprocessableContent)
                let base = "/console/tenants/calm-coach/settings"
                let settings = try await root.get("\(base)?done=created")
                #expect(settings.status == .ok && settings.text.contains("Tenant created with its first client key."))
                #expect(settings.text.contains("Calm &lt;Coach&gt;") && settings.text.contains("/settings\">Settings</a>"))
                let firstKey = String(try #require(settings.text.firstMatch(of: #/<code>(hpk_[A-Za-z0-9_-]+)</code>/#)).1)
                let person = try await client.anonymous(clientKey: firstKey)

                // Every settings form refuses a post without the session's CSRF token, changing nothing.
                for (form, fields) in [("general", [("name", "X"), ("passwordMinLength", "9"), ("bundleIDs", "")]), ("llm/primary", [("kind", "offline"), ("model", "m")]),
                                       ("safety", [("locale", "default"), ("resources", "A | b | 1 | |")]), ("keys", []), ("keys/revoke", [("key", firstKey)])] {
                    #expect(try await root.post("\(base)/\(form)", fields + [("csrf", "forged")]).status == .forbidden, "\(form)")
                    #expect(try await admin.post("/console/tenants/\(existing.slug)/settings/\(form)", fields + [("csrf", try ConsoleBrowser.csrf(in: adminPage))])
                        .status == .forbidden, "\(form)")
                }
                #expect(try await hearth.adminCount("audit_log WHERE action LIKE 'tenant.%' AND action <> 'tenant.create'") == 0)

                // General settings.
                let general = "\(base)/general"
                let fields = [("csrf", csrf), ("name", "Calm Coach"), ("passwordMinLength", "12"),
                              ("bundleIDs", "com.example.calm\ncom.example.calm.dev"), ("promptDebug", "on")]
                let coachee = try await Coachee.make(client, key: firstKey)
                let preview = "/v1/threads/\(coachee.threadID)/prompt-preview"
                #expect(try await client.call(.post, preview, clientKey: firstKey, token: coachee.token, json: ["content": "Hi"]).status == .forbidden)
                #expect(try await root.post(general, fields).headers[.location] == "\(base)?done=general")
                #expect(try await client.call(.post, preview, clientKey: firstKey, token: coachee.token, json: ["content": "Hi"]).status == .ok)
                #expect(try await hearth.adminCount("""
                    tenants WHERE slug = 'calm-coach' AND name = 'Calm Coach' AND password_min_length = 12 AND prompt_debug
                    AND apple_audiences = ARRAY['com.example.calm', 'com.example.calm.dev']
                    """) == 1)
                #expect(try await root.post(general, fields.map { $0.0 == "bundleIDs" ? ($0.0, "not a bundle") : $0 }).status == .unprocessableContent)
                let short = try await root.post(general, fields.map { $0.0 == "passwordMinLength" ? ($0.0, "4") : $0 })
                #expect(short.status == .unprocessableContent && short.text.contains("Password minimum length must be between 8 and 128."))
                #expect(short.text.contains(#"name="passwordMinLength" inputmode="numeric" required value="4""#))  // as typed
                #expect(try await root.post(general, fields.map { $0.0 == "passwordMinLength" ? ($0.0, "ten") : $0 }).status == .unprocessableContent)

                // The model: a key typed in is refused; a reference is kept, and the next turn uses the provider.
                let primary = "\(base)/llm/primary"
                let provider = [("csrf", csrf), ("kind", "openai"), ("model", "gpt-4o-mini"), ("baseURL", "http://127.0.0.1:\(mockPort)/v1")]
                let typedKey = try await root.post(primary, provider + [("apiKeyReference", "sk-live-123")])
                #expect(typedKey.status == .unprocessableContent && typedKey.text.contains("never the key itself"))
                #expect(try await root.post(primary, [("csrf", csrf), ("kind", "openai"), ("model", "m"), ("baseURL", "ftp://x")]).status == .unprocessableContent)
                for hidden in ["https://sk-live-123@api.example.com/v1", "https://api.example.com/v1?api-key=sk-live-123"] {
                    let refused = try await root.post(primary, [("csrf", csrf), ("kind", "openai"), ("model", "m"), ("baseURL", hidden)])
                    #expect(refused.status == .unprocessableContent && refused.text.contains("no user, password or query"))
                }
                #expect(try await root.post("\(base)/llm/third", provider).status == .notFound)
                #expect(try await root.post(primary, provider + [("apiKeyReference", "env:CALM_OPENAI_KEY")]).headers[.location] == "\(base)?done=llm")
                #expect(try await hearth.adminCount("tenant_llm_providers WHERE api_key_ref = 'env:CALM_OPENAI_KEY' AND model = 'gpt-4o-mini'") == 1)
                #expect(try await root.post(primary, provider + [("apiKeyReference", "")]).status == .seeOther)
                let turn = try await client.call(.post, coachee.messagesPath, clientKey: firstKey, token: coachee.token, json: ["content": "Hello"])
                #expect((turn["assistantMessage"] as? [String: Any])?["provider"] as? String == "openai")
                #expect(try await root.post("\(base)/llm/fallback", [("csrf", csrf), ("kind", "offline")]).status == .seeOther)
                #expect(try await hearth.adminCount("tenant_llm_providers WHERE position = 1 AND kind = 'offline' AND model = 'offline'") == 1)
                #expect(try await root.post("\(base)/llm/fallback", [("csrf", csrf), ("kind", "none")]).status == .seeOther)

                // Crisis resources for a locale, served to the tenant's apps.
                let safety = "\(base)/safety"
                let noContact = try await root.post(safety, [("csrf", csrf), ("locale", "en-GB"), ("resources", "Samaritans | Listening")])
                #expect(noContact.status == .unprocessableContent && noContact.text.contains("at least one resource"))
                let resources = "Samaritans | Listening, day or night | 116 123 | | https://www.samaritans.org\nShout | Text support | | Text SHOUT to 85258 |"
                #expect(try await root.post(safety, [("csrf", csrf), ("locale", "en-GB"), ("resources", resources)]).headers[.location] == "\(base)?done=safety")
                let served = try await client.call(.get, "/v1/safety?locale=en-GB", clientKey: firstKey, token: person.accessToken)
                let names = (served["crisisResources"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                #expect(names == ["Samaritans", "Shout"])
                #expect(try await root.get(base).text.contains("Samaritans | Listening, day or night | 116 123 |  | https://www.samaritans.org"))

                // Rotation: the last key cannot go; a second is added, the first revoked and refused from then on.
                let lastKey = try await root.post("\(base)/keys/revoke", [("csrf", csrf), ("key", firstKey)])
                #expect(lastKey.status == .conflict && lastKey.text.contains("add a new key first"))
                #expect(try await root.post("\(base)/keys", [("csrf", csrf)]).headers[.location] == "\(base)?done=key-added")
                let keys = try await root.get(base).text.matches(of: #/<code>(hpk_[A-Za-z0-9_-]+)</code>/#).map { String($0.1) }
                #expect(keys.count == 2 && keys.first == firstKey)
                let secondKey = try #require(keys.last)
                #expect(try await root.post("\(base)/keys/revoke", [("csrf", csrf), ("key", firstKey)]).headers[.location] == "\(base)?done=key-revoked")
                #expect(try await client.call(.post, "/v1/auth/anonymous", clientKey: firstKey).status == .unauthorized)
                #expect(try await client.call(.post, "/v1/auth/anonymous", clientKey: secondKey).status == .created)
                #expect(!(try await root.get(base).text.contains(#"name="key" value="\#(secondKey)""#)))  // the last key offers no revoke

                let audit = try await root.get("/console/tenants/calm-coach/audit")
                for entry in ["tenant.create", "calm-coach (Calm &lt;Coach&gt;)", "tenant.settings", "prompt_debug=true", "tenant.llm",
                              "primary: openai gpt-4o-mini at http://127.0.0.1:\(mockPort)/v1", "fallback: removed", "tenant.safety",
                              "en-GB: Samaritans, Shout", "tenant.key.add", "tenant.key.revoke", String(firstKey.prefix(10))] {
                    #expect(audit.text.contains(entry), "\(entry)")
                }
                #expect(!audit.text.contains(firstKey) && !audit.text.contains("sk-live"))
            }
        }
    }
}
