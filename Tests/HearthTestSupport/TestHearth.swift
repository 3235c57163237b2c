import Foundation
import HearthApp
import HearthPlatform
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO

/// A Hearth instance for one test: its own cloned database, its own master key, the real application
/// built by `buildApplication`, served over real HTTP on a loopback port.
public struct TestHearth: Sendable {
    public var config: Config
    public let databases: TestPostgres.Databases

    /// `databases`: a database of the test's own (a private server it restarts, say); by default a clone of the
    /// suite's migrated template.
    public static func make(databases: TestPostgres.Databases? = nil, _ customise: (inout Config) -> Void = { _ in }) async throws -> TestHearth {
        let databases = if let databases { databases } else { try await TestPostgres.shared.freshDatabase() }
        var config = Config()
        config.databaseURL = databases.app
        config.migrationDatabaseURL = databases.admin
        config.databasePoolSize = 4
        config.masterKeys = try KeyRing(parsing: KeyRing.generateSpecification(version: 1))
        config.resourcesDirectory = TestPaths.repositoryRoot
        // Real argon2id at a lower cost than production, so the suite stays quick.
        config.accounts.passwordCost = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        // The offline model streams at full speed in tests.
        config.llm.offlinePace = .zero
        // A mock's first token only waits on the machine, which in a full parallel run on two cores has taken
        // seconds: a 10 s limit met there would retry an answer a test expects once. Stalls are tested in LLMTests.
        config.llm.firstTokenTimeout = .seconds(60)
        // The failure budget bounds the first token too (each provider's share of it): as long, for the same reason.
        config.llm.chainPolicy.failureBudget = .seconds(60)
        // No background jobs unless a test asks for them (`config.jobs.workers = 1`); then they are picked up quickly.
        config.jobs.workers = 0
        config.jobs.pollInterval = .milliseconds(50)
        customise(&config)
        return TestHearth(config: config, databases: databases)
    }

    public var keyRing: KeyRing { config.masterKeys! }

    /// Runs `body` against the live server.
    public func test<T: Sendable>(
        logger: Logger = TestLogs.quiet,
        configureRouter: (@Sendable (Router<HearthRequestContext>) -> Void)? = nil,
        _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let app = try await buildApplication(config, logger: logger, configureRouter: configureRouter)
        return try await app.test(.live) { client in try await body(client) }
    }

    /// Builds and runs the application as `hearth serve` would, on a free port, until it stops or fails;
    /// for tests of startup checks (the live harness would wait forever for a server that never starts).
    public func runUntilFailure(timeout: Duration = .seconds(30)) async throws {
        var config = config
        config.port = 0
        let app = try await buildApplication(config, logger: TestLogs.quiet)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TestTimeout()
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// The server's own role (row-level security applies).
    public func withAppDatabase<T: Sendable>(_ body: @Sendable (Database) async throws -> T) async throws -> T {
        try await Database.connect(to: databases.app, logger: TestLogs.quiet, body)
    }

    /// The superuser (sees every row): for asserting what is really stored.
    public func withAdminDatabase<T: Sendable>(_ body: @Sendable (Database) async throws -> T) async throws -> T {
        try await Database.connect(to: databases.admin, logger: TestLogs.quiet, body)
    }

    /// Creates a tenant through the real store and returns it with its client key.
    public func createTenant(
        _ slug: String = "tenant-\(UUID().uuidString.prefix(8).lowercased())",
        name: String? = nil,
        settings: TenantStore.Settings = .init()
    ) async throws -> (tenant: Tenant, clientKey: String) {
        let keyRing = keyRing
        return try await withAppDatabase { database in
            try await TenantStore(database: database, keyRing: keyRing).create(slug: slug, name: name ?? "Test \(slug)", settings: settings)
        }
    }

    /// Counts rows as the superuser, e.g. `count("users WHERE tenant_id = …")`.
    public func adminCount(_ fromClause: String) async throws -> Int {
        try await withAdminDatabase { database in
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(fromClause)"), logger: database.logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }

    /// One text column of a query, as the superuser: for asserting stored state that is not a count.
    public func adminTexts(_ sql: String) async throws -> [String] {
        try await withAdminDatabase { database in
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger)
            return try await rows.collect().map { try $0.decode(String.self) }
        }
    }

    /// Polls `SELECT count(*) FROM fromClause` until it equals `count` (or, without one, is positive); false if
    /// that does not happen within `timeout`. For work that completes in the background. The timeout is generous
    /// because it only bounds a failure: in a full parallel run on two cores a test's server can take tens of seconds
    /// over a few dozen statements (in CI's first minute a domain-file watcher once missed a 30 s bound that way, when
    /// every test started at once; a job retried twice once missed a 10 s one).
    public func eventually(_ fromClause: String, equals count: Int? = nil, timeout: Duration = .seconds(120)) async throws -> Bool {
        try await waitUntil(timeout: timeout, every: .milliseconds(50)) {
            let current = try await adminCount(fromClause)
            return count.map { current == $0 } ?? (current > 0)
        }
    }

    /// Lifts every plan's and every tenant's limits to their maximum: for load tests, which measure Hearth's work
    /// (the limits are still checked on every request) rather than its refusals.
    public func liftLimits() async throws {
        try await admin("""
            UPDATE billing_plans SET requests_per_minute = 100000, tokens_per_day = 1000000000, concurrent_streams = 100,
                                     monthly_budget_micros = 1000000000000
            """)
        try await admin("UPDATE tenant_limits SET requests_per_second = 1000000, signups_per_hour_per_address = 1000000, logins_per_minute_per_address = 1000000")
    }

    /// Runs one statement as the schema owner: for arranging states the API cannot reach (a server that died).
    public func admin(_ sql: String) async throws {
        try await withAdminDatabase { database in
            _ = try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger)
        }
    }
}

public struct TestTimeout: Error {}
