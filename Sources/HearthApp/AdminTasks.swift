import Accounts
import Coaching
import CoachingDomains
import Console
import Foundation
import HearthPlatform
import Logging
import Personas
import PostgresNIO
import Safety

/// What the `hearth` subcommands do, kept here so the executable only parses arguments.
public enum AdminTasks {
    /// The tenant a command names by slug; an error naming the slug when there is none.
    static func tenant(_ slug: String, in database: Database, keyRing: KeyRing) async throws -> Tenant {
        guard let tenant = try await TenantStore(database: database, keyRing: keyRing).find(slug: slug) else {
            throw ConfigError("no tenant with slug '\(slug)'")
        }
        return tenant
    }

    public static func migrate(_ config: Config, logger: Logger) async throws -> Migrator.Report {
        guard let url = config.migrationDatabaseURL else {
            throw ConfigError("set HEARTH_MIGRATION_DATABASE_URL (or HEARTH_DATABASE_URL) to the schema owner's database URL")
        }
        let migrations = try Migration.load(from: config.migrationsDirectory)
        return try await Database.connect(to: url, logger: logger) { database in
            try await Migrator(migrations: migrations, logger: logger).run(on: database.client)
        }
    }

    public static func withTenants<T: Sendable>(
        _ config: Config, logger: Logger, _ body: @Sendable (TenantStore) async throws -> T
    ) async throws -> T {
        let keyRing = try config.requireKeyRing()
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            try await body(TenantStore(database: database, keyRing: keyRing))
        }
    }

    public static func withJobs<T: Sendable>(_ config: Config, logger: Logger, _ body: @Sendable (JobStore) async throws -> T) async throws -> T {
        try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            try await body(JobStore(client: database.client, logger: logger))
        }
    }

    public static func createOperator(
        _ config: Config, logger: Logger, email: String, password: String, role: Operator.Role, tenantSlug: String?
    ) async throws -> Operator {
        try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            var tenantID: UUID?
            if let tenantSlug {
                tenantID = try await tenant(tenantSlug, in: database, keyRing: try config.requireKeyRing()).id
            }
            let store = OperatorStore(database: database, hasher: PasswordHasher(cost: config.accounts.passwordCost))
            return try await store.create(email: email, password: password, role: role, tenantID: tenantID)
        }
    }

    /// Re-wraps every tenant index key and user data key under the current (newest) master key.
    /// Servers keep running throughout: they hold every master key version and unwrap either.
    public static func rotateKeys(_ config: Config, logger: Logger) async throws -> (tenants: Int, users: Int) {
        let keyRing = try config.requireKeyRing()
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenants = TenantStore(database: database, keyRing: keyRing)
            let rewrappedTenants = try await tenants.rewrapIndexKeys()
            let accounts = try await AccountService.make(
                database: database, keyRing: keyRing, configuration: config.accounts,
                apple: AppleIdentityVerifier(jwks: JWKSProvider(source: config.accounts.appleJWKS, httpClient: .shared))
            )
            var users = 0
            for tenant in try await tenants.list() {
                users += try await accounts.rewrapUserKeys(tenantID: tenant.id)
            }
            return (rewrappedTenants, users)
        }
    }
}

extension AdminTasks {
    /// Sets (or with `setting == nil`, removes) a tenant's primary or fallback LLM provider, as
    /// `ProviderSetting.described` checked it.
    public static func configureProvider(
        _ config: Config, logger: Logger, tenantSlug: String, position: ProviderSetting.Position, setting: ProviderSetting?
    ) async throws {
        let keyRing = try config.requireKeyRing()
        try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            try await database.withTenant(tenant.id) { connection in
                let store = ProviderSettingsStore(logger: logger)
                if let setting {
                    try await store.save(setting, tenantID: tenant.id, on: connection)
                } else {
                    try await store.remove(position, on: connection)
                }
            }
        }
    }
}

extension AdminTasks {
    /// Runs `body` with the domains feature and the tenant `slug`.
    public static func withDomains<T: Sendable>(
        _ config: Config, logger: Logger, tenantSlug: String, _ body: @Sendable (CoachingDomains, Tenant) async throws -> T
    ) async throws -> T {
        let keyRing = try config.requireKeyRing()
        let defaults = try DomainFiles.load(config.domainFiles.path)
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            try await body(CoachingDomains(database: database, defaults: defaults), try await tenant(tenantSlug, in: database, keyRing: keyRing))
        }
    }

    /// Sets a tenant's crisis resources (and optionally its disclaimer) for a locale.
    public static func setSafety(_ config: Config, logger: Logger, tenantSlug: String, locale: String, resources: [CrisisResource],
                                 disclaimer: Disclaimer?) async throws {
        let keyRing = try config.requireKeyRing()
        try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            try await SafetySettings(database: database).save(tenantID: tenant.id, locale: locale, resources: resources, disclaimer: disclaimer)
        }
    }

    /// Sets how a tenant's persona submissions are reviewed (docs/api.md, "Personas").
    public static func setPersonaReview(_ config: Config, logger: Logger, tenantSlug: String, policy: Personas.ReviewPolicy) async throws {
        let keyRing = try config.requireKeyRing()
        try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            try await Personas.setReviewPolicy(database: database, tenantID: tenant.id, policy)
        }
    }

    /// Sets how a tenant's share links reach its app. Each value left `nil` keeps the current one; an empty one
    /// clears it; `appIDs`, when given, replaces the list. Returns the settings now in force.
    public static func setAppLinks(_ config: Config, logger: Logger, tenantSlug: String, host: String? = nil, appName: String? = nil,
                                   urlScheme: String? = nil, appStoreID: String? = nil, appIDs: [String]? = nil) async throws -> AppLinks {
        let keyRing = try config.requireKeyRing()
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            var links = try await AppLinks.read(tenantID: tenant.id, database: database)
            func merged(_ new: String?, _ old: String?) -> String? { new.map { $0.isEmpty ? nil : $0 } ?? old }
            links.host = merged(host, links.host)
            links.appName = merged(appName, links.appName)
            links.urlScheme = merged(urlScheme, links.urlScheme)
            links.appStoreID = merged(appStoreID, links.appStoreID)
            links.appIDs = appIDs.map { $0.filter { !$0.isEmpty } } ?? links.appIDs
            return try await links.save(tenantID: tenant.id, database: database)
        }
    }
}
