import Foundation
import HearthApp
import HearthPlatform
import Logging
import PostgresNIO

/// One throwaway PostgreSQL per test process (started by this code, not by a script), holding a migrated
/// template database; every test gets its own clone of it, so tests run in parallel without sharing rows.
///
/// The server lives in a temporary directory and stops — and the directory is deleted — when the test
/// process exits, however it exits (see ``EmbeddedPostgres``).
public actor TestPostgres {
    public static let shared = TestPostgres()

    public struct Databases: Sendable {
        /// Superuser on the clone: for checks that must see past row-level security.
        public let admin: DatabaseURL
        /// `hearth_app` on the clone: what the server uses.
        public let app: DatabaseURL

        public init(admin: DatabaseURL, app: DatabaseURL) {
            self.admin = admin
            self.app = app
        }
    }

    static let templateName = "hearth_template"
    private var started: Task<(EmbeddedPostgres?, EmbeddedPostgres.Endpoints, PostgresClient), any Error>?
    private var clones = 0

    /// A fresh database cloned from the migrated template.
    public func freshDatabase() async throws -> Databases {
        let (_, endpoints, admin) = try await server()
        clones += 1
        let name = "test_\(ProcessInfo.processInfo.processIdentifier)_\(clones)"
        // Clones are created one at a time (this actor): CREATE DATABASE … TEMPLATE needs the template idle.
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(Self.templateName)"), logger: TestLogs.quiet)
        return Databases(admin: endpoints.admin.with(database: name), app: endpoints.app.with(database: name))
    }

    /// The template's URLs, for tests of the migration runner itself (they create their own databases).
    public func serverEndpoints() async throws -> EmbeddedPostgres.Endpoints {
        try await server().1
    }

    private func server() async throws -> (EmbeddedPostgres?, EmbeddedPostgres.Endpoints, PostgresClient) {
        if let started { return try await started.value }
        let task = Task { try await Self.start() }
        started = task
        return try await task.value
    }

    private static func start() async throws -> (EmbeddedPostgres?, EmbeddedPostgres.Endpoints, PostgresClient) {
        let server: EmbeddedPostgres?
        let endpoints: EmbeddedPostgres.Endpoints
        if let external = ProcessInfo.processInfo.environment["HEARTH_TEST_DATABASE_URL"], !external.isEmpty {
            // An external server: HEARTH_TEST_DATABASE_URL is a superuser URL; we make the role and template.
            server = nil
            let admin = try DatabaseURL(external)
            let appPassword = Secrets.randomHex(byteCount: 24)
            try await Database.connect(to: admin, logger: TestLogs.quiet) { database in
                try await database.client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(templateName) WITH (FORCE)"), logger: TestLogs.quiet)
            }
            try await EmbeddedPostgres.prepare(admin: admin, appPassword: appPassword, database: templateName, logger: TestLogs.quiet)
            endpoints = .init(admin: admin.with(database: templateName),
                              app: admin.with(database: templateName).with(username: EmbeddedPostgres.appRole, password: appPassword))
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-pg-\(UUID().uuidString.prefix(8))")
            let embedded = EmbeddedPostgres(directory: directory, port: try EmbeddedPostgres.freePort(), ephemeral: true, logger: TestLogs.quiet)
            endpoints = try await embedded.start(database: templateName)
            server = embedded
        }
        var config = Config()
        config.migrationDatabaseURL = endpoints.admin
        config.resourcesDirectory = TestPaths.repositoryRoot
        _ = try await AdminTasks.migrate(config, logger: TestLogs.quiet)
        // A long-lived superuser connection to the maintenance database, for CREATE DATABASE.
        let admin = PostgresClient(configuration: try endpoints.admin.with(database: "postgres").clientConfiguration(), backgroundLogger: TestLogs.quiet)
        Task.detached { await admin.run() }
        return (server, endpoints, admin)
    }
}

public enum TestPaths {
    /// The checkout root, found from this file's location (Tests/HearthTestSupport/…).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var migrations: URL { repositoryRoot.appendingPathComponent("migrations") }

    /// The `text` of every line of the labelled sets under evals/: thousands of real-looking messages, for tests
    /// that hold a fast reading of text to its general one.
    public static func labelledTexts() throws -> [String] {
        let directory = repositoryRoot.appendingPathComponent("evals")
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jsonl") }.sorted()
        return try files.flatMap { file in
            try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).split(separator: "\n").compactMap { line in
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
            }
        }
    }
}
