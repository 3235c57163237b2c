import CoachingDomains
import Foundation
import HearthPlatform
import HearthTestSupport
import Testing

/// Domains stored per tenant, versioned, rolled back, and picked up from files without a restart.
@Suite struct DomainVersionTests {
    static func defaults() throws -> [DomainDefinition] {
        try DomainFiles.load(DomainDefinitionTests.directory)
    }

    @Test func aTenantStartsWithTheDefaultsAndEveryChangeIsAVersion() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let (other, _) = try await hearth.createTenant()
        let defaults = try Self.defaults()
        try await hearth.withAppDatabase { database in
            let domains = CoachingDomains(database: database, defaults: defaults)
            let first = try await domains.currentCatalog(tenantID: tenant.id)
            #expect(first.enabled.count == 7)
            #expect(first.versions["career"]?.version == 1 && first.versions["career"]?.source == .file)

            var career = try #require(first.definition("career"))
            career.tone = "Blunt and brief."
            #expect(try await domains.save([career], tenantID: tenant.id, source: .console, author: "ops@example.com").map(\.version) == [2])
            // Saving the same definition again is not a change.
            #expect(try await domains.save([career], tenantID: tenant.id, source: .console, author: "ops@example.com").isEmpty)
            career.enabled = false
            _ = try await domains.save([career], tenantID: tenant.id, source: .console, author: "ops@example.com")

            let edited = try await domains.currentCatalog(tenantID: tenant.id)
            #expect(edited.definition("career") == nil)
            #expect(!edited.router.keys.contains("career"))
            #expect(edited.stamp > first.stamp)
            #expect(try await domains.history("career", tenantID: tenant.id).map(\.version) == [3, 2, 1])

            #expect(try await domains.rollback("career", to: 1, tenantID: tenant.id, author: "ops@example.com") == 4)
            let rolledBack = try await domains.currentCatalog(tenantID: tenant.id)
            #expect(rolledBack.definition("career")?.tone == defaults.first { $0.key == "career" }?.tone)
            #expect(rolledBack.versions["career"]?.source == .rollback)
            #expect(try await domains.rollback("career", to: 99, tenantID: tenant.id, author: "x") == nil)

            // The other tenant never saw any of it.
            let untouched = try await domains.currentCatalog(tenantID: other.id)
            #expect(untouched.versions["career"]?.version == 1)
        }
    }

    @Test func editedFilesReachEveryTenantButNeverOverwriteAnOperatorsChange() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in try FileManager.default.contentsOfDirectory(atPath: DomainDefinitionTests.directory) {
            try FileManager.default.copyItem(atPath: DomainDefinitionTests.directory + "/" + name, toPath: directory.appendingPathComponent(name).path)
        }
        let hearth = try await TestHearth.make { config in
            config.domainsDirectory = directory
            config.domainsPollInterval = .milliseconds(100)
        }
        let (tenant, key) = try await hearth.createTenant()
        let (edited, _) = try await hearth.createTenant()
        let defaults = try Self.defaults()
        try await hearth.withAppDatabase { database in
            let domains = CoachingDomains(database: database, defaults: defaults)
            var fitness = try #require(try await domains.currentCatalog(tenantID: edited.id).definition("fitness"))
            fitness.tone = "Our own fitness tone."
            _ = try await domains.save([fitness], tenantID: edited.id, source: .console, author: "ops@example.com")
        }
        try await hearth.test { client in
            // While the server runs: an eighth domain and an edit arrive as files.
            try DomainDefinitionTests.parenting.write(to: directory.appendingPathComponent("parenting.yaml"), atomically: true, encoding: .utf8)
            let fitnessFile = directory.appendingPathComponent("fitness.yaml")
            let text = try String(contentsOf: fitnessFile, encoding: .utf8)
            try text.replacingOccurrences(of: "\ntone: ", with: "\ntone: Edited on disk. ").write(to: fitnessFile, atomically: true, encoding: .utf8)
            #expect(try await hearth.eventually("domain_versions WHERE key = 'parenting'", equals: 2))

            let list = try await client.call(.get, "/v1/domains", clientKey: key)
            let keys = (list["domains"] as? [[String: Any]])?.compactMap { $0["key"] as? String }
            #expect(keys == ["career", "creativity", "fitness", "leadership", "life", "mindset", "parenting", "relationships"])
            // A thread can be opened in the new domain, and the router sends parenting messages there.
            let coachee = try await Coachee.make(client, key: key, domain: "parenting")
            let bad = try await client.call(.post, "/v1/threads", clientKey: key, token: coachee.token, json: ["domain": "astrology"])
            #expect(bad.status == .unprocessableContent)
        }
        #expect(try await hearth.adminCount("domain_versions WHERE key = 'fitness' AND tenant_id = '\(tenant.id)' AND definition->>'tone' LIKE 'Edited on disk.%'") == 1)
        // The operator's own edit stays in effect for the tenant that made it.
        #expect(try await hearth.adminCount("domain_versions WHERE key = 'fitness' AND tenant_id = '\(edited.id)' AND definition->>'tone' LIKE 'Edited on disk.%'") == 0)
    }

    @Test func eachMessageIsRoutedAndStoredWithItsDomainAndShortFollowUpsStay() async throws {
        try await withMockedHearth(.init(responseTokens: 3)) { controls, hearth, key, _ in
            controls.recordConversations()
            try await hearth.test { client in
                let coachee = try await Coachee.make(client, key: key)
                for content in ["I have a job interview for a product manager role on Friday and I'm nervous about the salary question",
                                "yeah, exactly",
                                "I want to run my first half marathon but my knees hurt after long runs"] {
                    let response = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": content])
                    #expect(response.status == .ok)
                }
                let domains = try await hearth.adminString(
                    "SELECT string_agg(coalesce(domain, '-'), ',' ORDER BY seq) FROM messages WHERE role = 'user'"
                )
                #expect(domains == "career,career,fitness")
                #expect(try await hearth.adminString("SELECT domain FROM threads") == "fitness")
                // The domain shapes the prompt: its method is in the instructions the model received.
                #expect(controls.systemPrompts.first?.contains("## Coaching domain\n- Domain: Career") == true)
                #expect(controls.systemPrompts.last?.contains("- Domain: Fitness") == true)

                // A thread the person opened in a domain stays in it.
                let chosen = try await coachee.newThread(client, domain: "career")
                _ = try await client.call(.post, chosen.messagesPath, clientKey: key, token: coachee.token,
                                          json: ["content": "my knees hurt after long runs"])
                #expect(try await hearth.adminString("SELECT domain FROM messages WHERE thread_id = '\(chosen.threadID)' AND role = 'user'") == "career")
            }
        }
    }
}
