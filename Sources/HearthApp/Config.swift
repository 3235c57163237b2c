import Accounts
import Coaching
import Console
import Foundation
import HearthPlatform
import Logging
import Memory

/// Everything Hearth reads from its environment, parsed and checked once at startup.
/// Every key is documented in docs/configuration.md; a bad value stops the process with a message that
/// names the key.
public struct Config: Sendable {
    public enum Environment: String, Sendable { case development, production }

    public var environment: Environment = .development
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the public pages (`/p/{slug}`) are reached from outside: share links are built on it.
    public var publicURL = "http://127.0.0.1:8080"
    /// The role the server connects as (must not bypass row-level security).
    public var databaseURL: DatabaseURL?
    /// The role `hearth migrate` connects as (owns the schema). Defaults to `databaseURL`.
    public var migrationDatabaseURL: DatabaseURL?
    public var databasePoolSize = 20
    /// How long a client-key lookup is remembered (zero: not at all). See ``TenantDirectory``.
    public var tenantCacheTTL: Duration = .seconds(5)
    /// Connections kept per LLM provider host: one per stream being answered, so this bounds concurrent turns per provider.
    public var providerConnectionsPerHost = 4096
    public var masterKeys: KeyRing?
    public var logFormat: LineLogHandler.Format = .text
    public var logLevel: Logger.Level = .info
    /// Where `migrations/`, `public/`, `templates/` and `docs/openapi.yaml` are read from.
    public var resourcesDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    public var accounts = AccountsConfiguration()
    /// Operator sign-in: lockout, idle timeout, session lifetime.
    public var operatorSessions = OperatorSessions.Policy()
    public var llm = ProviderFactory.Options()
    /// How long an answer lives on its instance's renewals, and how often its text is stored while it streams.
    public var answerLeases = AnswerLeases()
    /// Background jobs on this instance; zero workers runs none here (other instances still do).
    public var jobs = JobRunner.Options()
    /// When sessions end for want of activity.
    public var memoryWriting = MemoryWriter.Options()
    /// The "forget everything" cool-down and window.
    public var memory = MemoryService.Options()
    /// The coaching domain files: the defaults new tenants start with, and edits picked up while running
    /// (docs/domains.md). Defaults to `domains/` in the resources directory.
    public var domainsDirectory: URL?
    /// How often the domain files are checked for edits; zero: only at startup.
    public var domainsPollInterval: Duration = .seconds(10)

    public init() {}

    public var migrationsDirectory: URL { resourcesDirectory.appendingPathComponent("migrations") }
    public var openAPIFile: URL { resourcesDirectory.appendingPathComponent("docs/openapi.yaml") }
    public var templatesDirectory: URL { resourcesDirectory.appendingPathComponent("templates") }
    public var publicDirectory: URL { resourcesDirectory.appendingPathComponent("public") }
    public var domainFiles: URL { domainsDirectory ?? resourcesDirectory.appendingPathComponent("domains") }

    public func requireDatabaseURL() throws -> DatabaseURL {
        guard let databaseURL else { throw ConfigError("HEARTH_DATABASE_URL is not set") }
        return databaseURL
    }

    public func requireKeyRing() throws -> KeyRing {
        guard let masterKeys else {
            throw ConfigError("HEARTH_MASTER_KEY is not set (generate one with: hearth keys generate)")
        }
        return masterKeys
    }

    /// Reads `HEARTH_*` variables.
    public static func fromEnvironment(_ variables: [String: String] = ProcessInfo.processInfo.environment) throws -> Config {
        var config = Config()
        var reader = EnvironmentReader(variables: variables)
        config.environment = try reader.enumeration("HEARTH_ENV", default: .development)
        config.host = reader.string("HEARTH_HOST") ?? config.host
        config.port = try reader.integer("HEARTH_PORT", default: config.port, range: 1...65535)
        if let publicURL = reader.string("HEARTH_PUBLIC_URL") {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigError("HEARTH_PUBLIC_URL must be an http(s) URL such as https://coach.example.com")
            }
            config.publicURL = publicURL
        }
        config.databaseURL = try reader.string("HEARTH_DATABASE_URL").map { try reader.parse("HEARTH_DATABASE_URL", $0, DatabaseURL.init) }
        config.migrationDatabaseURL = try reader.string("HEARTH_MIGRATION_DATABASE_URL")
            .map { try reader.parse("HEARTH_MIGRATION_DATABASE_URL", $0, DatabaseURL.init) } ?? config.databaseURL
        config.databasePoolSize = try reader.integer("HEARTH_DATABASE_POOL_SIZE", default: config.databasePoolSize, range: 1...500)
        config.tenantCacheTTL = .seconds(try reader.integer("HEARTH_TENANT_CACHE_SECONDS", default: 5, range: 0...3600))
        config.providerConnectionsPerHost = try reader.integer(
            "HEARTH_LLM_CONNECTIONS_PER_HOST", default: config.providerConnectionsPerHost, range: 1...100_000
        )
        config.masterKeys = try reader.string("HEARTH_MASTER_KEY").map { try reader.parse("HEARTH_MASTER_KEY", $0, KeyRing.init(parsing:)) }
        config.logFormat = try reader.enumeration("HEARTH_LOG_FORMAT", default: config.environment == .production ? .json : .text)
        config.logLevel = try reader.enumeration("HEARTH_LOG_LEVEL", default: .info)
        if let directory = reader.string("HEARTH_RESOURCES_DIR") {
            config.resourcesDirectory = URL(fileURLWithPath: directory)
        }
        config.accounts.accessTokenLifetime = .seconds(try reader.integer("HEARTH_ACCESS_TOKEN_TTL_SECONDS", default: 900, range: 60...86_400))
        config.accounts.refreshTokenLifetime = .seconds(
            try reader.integer("HEARTH_REFRESH_TOKEN_TTL_DAYS", default: 60, range: 1...365) * 86_400
        )
        config.accounts.loginThrottle = .init(
            maxFailuresPerAccount: try reader.integer("HEARTH_LOGIN_MAX_FAILURES_PER_ACCOUNT", default: 5, range: 1...1000),
            maxFailuresPerAddress: try reader.integer("HEARTH_LOGIN_MAX_FAILURES_PER_ADDRESS", default: 20, range: 1...100_000),
            window: .seconds(try reader.integer("HEARTH_LOGIN_THROTTLE_WINDOW_SECONDS", default: 900, range: 1...86_400))
        )
        config.operatorSessions.maxFailures = try reader.integer("HEARTH_OPERATOR_MAX_FAILURES", default: 5, range: 1...100)
        config.operatorSessions.lockout = .seconds(try reader.integer("HEARTH_OPERATOR_LOCKOUT_MINUTES", default: 15, range: 1...1440) * 60)
        config.operatorSessions.idleTimeout = .seconds(try reader.integer("HEARTH_OPERATOR_IDLE_MINUTES", default: 30, range: 1...1440) * 60)
        config.operatorSessions.lifetime = .seconds(try reader.integer("HEARTH_OPERATOR_SESSION_HOURS", default: 12, range: 1...168) * 3600)
        if let jwks = reader.string("HEARTH_APPLE_JWKS_URL") {
            config.accounts.appleJWKS = try reader.parse("HEARTH_APPLE_JWKS_URL", jwks, JWKSProvider.Source.init)
        }
        config.llm.offlinePace = .milliseconds(try reader.integer("HEARTH_OFFLINE_PACE_MS", default: 35, range: 0...2000))
        config.llm.firstTokenTimeout = .seconds(try reader.integer("HEARTH_LLM_FIRST_TOKEN_TIMEOUT_SECONDS", default: 10, range: 1...300))
        config.llm.idleTimeout = .seconds(try reader.integer("HEARTH_LLM_IDLE_TIMEOUT_SECONDS", default: 30, range: 1...600))
        config.llm.chainPolicy.failureBudget = .seconds(try reader.integer("HEARTH_LLM_FAILURE_BUDGET_SECONDS", default: 3, range: 1...300))
        config.answerLeases.lifetime = .seconds(try reader.integer("HEARTH_ANSWER_LEASE_SECONDS", default: 20, range: 2...600))
        config.jobs.workers = try reader.integer("HEARTH_JOB_WORKERS", default: config.jobs.workers, range: 0...64)
        config.jobs.pollInterval = .milliseconds(try reader.integer("HEARTH_JOB_POLL_MS", default: 1000, range: 10...60_000))
        config.memoryWriting.idleAfter = .seconds(try reader.integer("HEARTH_MEMORY_IDLE_MINUTES", default: 30, range: 1...1440) * 60)
        config.domainsDirectory = reader.string("HEARTH_DOMAINS_DIR").map { URL(fileURLWithPath: $0) }
        config.domainsPollInterval = .seconds(try reader.integer("HEARTH_DOMAINS_POLL_SECONDS", default: 10, range: 0...86_400))
        config.memory.forgetCoolDown = .seconds(try reader.integer("HEARTH_MEMORY_FORGET_COOLDOWN_SECONDS", default: 60, range: 0...86_400))
        if let unknown = reader.unknownKeys().first {
            throw ConfigError("\(unknown) is not a Hearth setting (see docs/configuration.md)")
        }
        return config
    }
}

/// Reads and type-checks environment variables, remembering which `HEARTH_*` keys it was asked about so a
/// misspelt one is reported instead of silently ignored.
struct EnvironmentReader {
    let variables: [String: String]
    private(set) var asked: Set<String> = []

    /// Read by other parts of the program (the embedded Postgres, the test support), not by `Config`.
    static let readElsewhere: Set<String> = ["HEARTH_PG_BIN", "HEARTH_TEST_DATABASE_URL", "HEARTH_LOAD_CLIENT_KEY"]

    init(variables: [String: String]) {
        self.variables = variables
    }

    mutating func string(_ key: String) -> String? {
        asked.insert(key)
        return variables[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    mutating func integer(_ key: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = string(key) else { return value }
        guard let number = Int(raw), range.contains(number) else {
            throw ConfigError("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(raw)'")
        }
        return number
    }

    mutating func enumeration<T: RawRepresentable>(_ key: String, default value: T) throws -> T where T.RawValue == String {
        guard let raw = string(key) else { return value }
        guard let parsed = T(rawValue: raw) else { throw ConfigError("\(key) has an unknown value '\(raw)'") }
        return parsed
    }

    func parse<T>(_ key: String, _ raw: String, _ make: (String) throws -> T) throws -> T {
        do {
            return try make(raw)
        } catch let error as ConfigError {
            throw ConfigError("\(key): \(error.description)")
        }
    }

    func unknownKeys() -> [String] {
        variables.keys.filter { $0.hasPrefix("HEARTH_") && !asked.contains($0) && !Self.readElsewhere.contains($0) }.sorted()
    }
}

