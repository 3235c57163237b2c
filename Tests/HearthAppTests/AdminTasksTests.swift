import Billing
import Console
import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import Personas
import Testing

@Suite struct AdminTasksTests {
    @Test func migrateIsIdempotentOnAMigratedDatabase() async throws {
        let hearth = try await TestHearth.make()
        let report = try await AdminTasks.migrate(hearth.config, logger: TestLogs.quiet)
        #expect(report.applied.isEmpty)
        #expect(report.alreadyApplied == (try Migration.load(from: TestPaths.migrations)).count)
    }

    @Test func keyRotationRewrapsEverythingWhileDataStaysReadable() async throws {
        var hearth = try await TestHearth.make()
        let v1 = KeyRing.generateSpecification(version: 1)
        hearth.config.masterKeys = try KeyRing(parsing: v1)
        let (_, key) = try await hearth.createTenant()
        let grant = try await hearth.test { client in
            try await client.signUp(clientKey: key, email: "rotate@example.com", password: "correct horse battery")
        }
        _ = try await hearth.test { client in try await client.anonymous(clientKey: key) }

        // Operators add version 2 (servers keep both), rotate, then retire version 1.
        let v2 = KeyRing.generateSpecification(version: 2)
        hearth.config.masterKeys = try KeyRing(parsing: "\(v1),\(v2)")
        let (tenants, users) = try await AdminTasks.rotateKeys(hearth.config, logger: TestLogs.quiet)
        #expect(tenants == 1 && users == 2)
        #expect(try await hearth.adminCount("user_keys WHERE master_version <> 2") == 0)
        #expect(try await AdminTasks.rotateKeys(hearth.config, logger: TestLogs.quiet) == (0, 0))

        hearth.config.masterKeys = try KeyRing(parsing: v2)
        try await hearth.test { client in
            let login = try await client.call(.post, "/v1/auth/email/login", clientKey: key,
                                              json: ["email": "rotate@example.com", "password": "correct horse battery"])
            #expect(login.status == .ok)
            let me = try await client.call(.get, "/v1/me", clientKey: key, token: try login.decode(Grant.self).accessToken)
            #expect(me["email"] as? String == "rotate@example.com")
            #expect(me["id"] as? String == grant.user.id.uuidString)
        }
    }

    @Test func aTenantsPersonaReviewPolicyIsSetFromTheCommandLine() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        try await AdminTasks.setPersonaReview(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, policy: .all)
        #expect(try await hearth.adminString("SELECT review FROM persona_settings WHERE tenant_id = '\(tenant.id)'") == "all")
        try await AdminTasks.setPersonaReview(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, policy: .flagged)
        #expect(try await hearth.adminString("SELECT review FROM persona_settings WHERE tenant_id = '\(tenant.id)'") == "flagged")
        await #expect(throws: (any Error).self) {
            try await AdminTasks.setPersonaReview(hearth.config, logger: TestLogs.quiet, tenantSlug: "no-such-tenant", policy: .all)
        }
    }

    @Test func plansAndLimitsAreChangedAndCreatedFromTheCommandLine() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        var changes = AdminTasks.PlanChanges()
        changes.tokensPerDay = 40_000
        let trial = try await AdminTasks.setPlan(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, code: "trial", changes: changes)
        // Left out keeps: the trial plan's other defaults stay.
        #expect(trial == Plan(code: "trial", name: "Free trial", requestsPerMinute: 60, tokensPerDay: 40_000, concurrentStreams: 2,
                              monthlyBudgetMicros: 1_000_000))
        // A new plan needs every limit.
        changes.name = "Pro"
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.setPlan(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, code: "pro", changes: changes)
        }
        changes.requestsPerMinute = 200
        changes.concurrentStreams = 3
        changes.monthlyBudgetMicros = 8_000_000
        changes.productIDs = ["com.acme.coach.pro"]
        let pro = try await AdminTasks.setPlan(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, code: "pro", changes: changes)
        #expect(pro.productIds == ["com.acme.coach.pro"] && pro.economyAtPercent == 80)
        let plans = try await hearth.withAppDatabase { database in try await PlanStore(database: database).plans(tenantID: tenant.id) }
        #expect(plans.map(\.code) == ["trial", "premium", "pro"])
        var bad = AdminTasks.PlanChanges()
        bad.concurrentStreams = 0
        await #expect(throws: APIError.self) {
            try await AdminTasks.setPlan(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, code: "trial", changes: bad)
        }

        let limits = try await AdminTasks.setLimits(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, requestsPerSecond: 500,
                                                    signupsPerHour: nil, loginsPerMinute: 30)
        #expect(limits == TenantLimits(requestsPerSecond: 500, signupsPerHourPerAddress: 20, loginsPerMinutePerAddress: 30))
        let refused = await #expect(throws: APIError.self) {
            try await AdminTasks.setLimits(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, requestsPerSecond: 0,
                                           signupsPerHour: nil, loginsPerMinute: nil)
        }
        // What `hearth tenant limits` prints: the message, not the struct.
        #expect(refused.map(String.init(describing:)) == "requestsPerSecond must be between 1 and 1000000.")
    }

    @Test func aTenantsAppLinksAreSetChangedAndClearedFromTheCommandLine() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let set = try await AdminTasks.setAppLinks(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, host: "Links.Acme.example",
                                                   appName: "Acme Coach", urlScheme: "acmecoach", appStoreID: "1234567890",
                                                   appIDs: ["ABCDE12345.com.acme.coach"])
        #expect(set == AppLinks(host: "links.acme.example", appName: "Acme Coach", urlScheme: "acmecoach", appStoreID: "1234567890",
                                appIDs: ["ABCDE12345.com.acme.coach"]))
        // Left out keeps, empty clears.
        let changed = try await AdminTasks.setAppLinks(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, urlScheme: "", appIDs: [""])
        #expect(changed == AppLinks(host: "links.acme.example", appName: "Acme Coach", appStoreID: "1234567890"))
        for bad in [{ try await AdminTasks.setAppLinks(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, host: "not a host") },
                    { try await AdminTasks.setAppLinks(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, urlScheme: "https") },
                    { try await AdminTasks.setAppLinks(hearth.config, logger: TestLogs.quiet, tenantSlug: tenant.slug, appStoreID: "id12") }]
            as [@Sendable () async throws -> AppLinks] {
            await #expect(throws: ConfigError.self) { _ = try await bad() }
        }
        #expect(try await hearth.adminString("SELECT link_host FROM tenant_app_links WHERE tenant_id = '\(tenant.id)'") == "links.acme.example")
    }

    @Test func operatorsAreCreatedWithArgon2idAndRoleRules() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let admin = try await AdminTasks.createOperator(hearth.config, logger: TestLogs.quiet, email: "Ops@Example.com",
                                                        password: "a long operator password", role: .platformAdmin, tenantSlug: nil)
        #expect(admin.email == "ops@example.com" && admin.tenantID == nil)
        let moderator = try await AdminTasks.createOperator(hearth.config, logger: TestLogs.quiet, email: "mod@example.com",
                                                            password: "a long operator password", role: .moderator, tenantSlug: tenant.slug)
        #expect(moderator.tenantID == tenant.id)
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.createOperator(hearth.config, logger: TestLogs.quiet, email: "x@example.com",
                                                password: "a long operator password", role: .moderator, tenantSlug: nil)
        }
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.createOperator(hearth.config, logger: TestLogs.quiet, email: "ops@example.com",
                                                password: "a long operator password", role: .platformAdmin, tenantSlug: nil)
        }
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.createOperator(hearth.config, logger: TestLogs.quiet, email: "y@example.com",
                                                password: "short", role: .platformAdmin, tenantSlug: nil)
        }
        let hash = try #require(try await hearth.adminTexts("SELECT password_hash FROM operators WHERE email = 'ops@example.com'").first)
        #expect(hash.hasPrefix("$argon2id$"))
    }

    @Test func tenantsAreCreatedListedAndConfigured() async throws {
        let hearth = try await TestHearth.make()
        let (created, key) = try await AdminTasks.withTenants(hearth.config, logger: TestLogs.quiet) { store in
            try await store.create(slug: "acme-coach", name: "Acme Coach", settings: .init(appleAudiences: ["com.acme.coach"]))
        }
        #expect(key.hasPrefix("hpk_"))
        #expect(created.passwordMinLength == 8)
        let updated = try await AdminTasks.withTenants(hearth.config, logger: TestLogs.quiet) { store in
            try await store.update(slug: "acme-coach", settings: .init(passwordMinLength: 10))
        }
        #expect(updated.passwordMinLength == 10 && updated.appleAudiences == ["com.acme.coach"])
        let slugs = try await AdminTasks.withTenants(hearth.config, logger: TestLogs.quiet) { try await $0.list().map(\.slug) }
        #expect(slugs == ["acme-coach"])
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.withTenants(hearth.config, logger: TestLogs.quiet) { try await $0.create(slug: "acme-coach", name: "Again") }
        }
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.withTenants(hearth.config, logger: TestLogs.quiet) { try await $0.create(slug: "Bad Slug!", name: "x") }
        }
        await #expect(throws: ConfigError.self) {
            try await AdminTasks.withTenants(hearth.config, logger: TestLogs.quiet) { try await $0.update(slug: "acme-coach", settings: .init(passwordMinLength: 4)) }
        }
    }
}
