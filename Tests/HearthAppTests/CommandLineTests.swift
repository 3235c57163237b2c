import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import PostgresNIO
import Testing

/// The real `hearth` executable (built by `swift build --build-tests`), run as an operator would.
@Suite struct CommandLineTests {
    static let binary = TestPaths.repositoryRoot.appendingPathComponent(".build/debug/hearth").path

    func hearth(_ arguments: [String], _ environment: [String: String], input: String? = nil) async throws -> (Int32, String) {
        var full = environment
        full["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        full["HEARTH_RESOURCES_DIR"] = TestPaths.repositoryRoot.path
        full["HEARTH_LOG_LEVEL"] = "warning"
        return try await ChildProcess.run([Self.binary] + arguments, in: TestPaths.repositoryRoot.path, environment: full, input: input)
    }

    @Test func migrateTenantAndOperatorCommandsWorkEndToEnd() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build the hearth product first (scripts/test does)")
        // An empty database: the CLI migrates it from scratch.
        let endpoints = try await TestPostgres.shared.serverEndpoints()
        let name = "cli_\(UUID().uuidString.prefix(8).lowercased())"
        try await Database.connect(to: endpoints.admin.with(database: "postgres"), logger: TestLogs.quiet) { database in
            try await database.client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: TestLogs.quiet)
        }
        let environment = [
            "HEARTH_MIGRATION_DATABASE_URL": endpoints.admin.with(database: name).string,
            "HEARTH_DATABASE_URL": endpoints.app.with(database: name).string,
            "HEARTH_MASTER_KEY": KeyRing.generateSpecification(version: 1),
        ]
        let migrated = try await hearth(["migrate"], environment)
        #expect(migrated.0 == 0, "\(migrated.1)")
        #expect(migrated.1.contains("applied 0001_tenancy.sql"))
        let again = try await hearth(["migrate"], environment)
        #expect(again.1.contains("0 applied"))

        let created = try await hearth(["tenant", "create", "--slug", "cli-coach", "--name", "CLI Coach", "--apple-audience", "com.cli.coach"], environment)
        #expect(created.0 == 0, "\(created.1)")
        #expect(created.1.contains("client key: hpk_"))
        let listed = try await hearth(["tenant", "list"], environment)
        #expect(listed.1.contains("cli-coach"))
        let debug = try await hearth(["tenant", "set", "cli-coach", "--prompt-debug", "on"], environment)
        #expect(debug.1.contains("prompt debug on"), "\(debug.1)")

        let llm = try await hearth(["tenant", "llm", "cli-coach", "--kind", "openai", "--model", "gpt-4o-mini",
                                    "--base-url", "https://api.openai.com/v1", "--api-key", "env:OPENAI_API_KEY"], environment)
        #expect(llm.0 == 0, "\(llm.1)")
        let badReference = try await hearth(["tenant", "llm", "cli-coach", "--kind", "openai", "--model", "m", "--api-key", "sk-live-secret"], environment)
        #expect(badReference.0 != 0)
        #expect(!badReference.1.contains("sk-live-secret") || badReference.1.contains("reference"))
        let stored = try await Database.connect(to: endpoints.admin.with(database: name), logger: TestLogs.quiet) { database in
            try await database.client.query("SELECT kind || ' ' || model || ' ' || api_key_ref FROM tenant_llm_providers", logger: TestLogs.quiet)
                .collect().map { try $0.decode(String.self) }
        }
        #expect(stored == ["openai gpt-4o-mini env:OPENAI_API_KEY"])

        let operatorCreated = try await hearth(["operator", "create", "--email", "ops@example.com", "--role", "platform_admin"], environment,
                                               input: "a long operator password\n")
        #expect(operatorCreated.0 == 0, "\(operatorCreated.1)")
        let badRole = try await hearth(["operator", "create", "--email", "x@example.com", "--role", "king"], environment, input: "a long operator password\n")
        #expect(badRole.0 != 0)

        // Dead jobs are visible and can be retried.
        let deadID = try await Database.connect(to: endpoints.admin.with(database: name), logger: TestLogs.quiet) { database in
            try await database.client.query(
                "INSERT INTO jobs (kind, state, attempts, max_attempts, last_error, finished_at) VALUES ('test.kind', 'dead', 5, 5, 'boom', now()) RETURNING id",
                logger: TestLogs.quiet
            ).collect().first!.decode(Int64.self)
        }
        let dead = try await hearth(["jobs", "list", "--state", "dead"], environment)
        #expect(dead.0 == 0, "\(dead.1)")
        #expect(dead.1.contains("\(deadID)\ttest.kind\tdead\t5/5"))
        #expect(dead.1.contains("boom"))
        let retried = try await hearth(["jobs", "retry", "\(deadID)"], environment)
        #expect(retried.0 == 0, "\(retried.1)")
        #expect(try await hearth(["jobs", "list", "--state", "pending"], environment).1.contains("\(deadID)\ttest.kind\tpending\t0/5"))
        #expect(try await hearth(["jobs", "retry", "\(deadID)"], environment).0 != 0)
        #expect(try await hearth(["jobs", "list", "--state", "sleeping"], environment).0 != 0)

        let typo = try await hearth(["tenant", "list"], environment.merging(["HEARTH_DATABSE_URL": "x"]) { $1 })
        #expect(typo.0 != 0)
        #expect(typo.1.contains("HEARTH_DATABSE_URL"))
    }

    @Test func keysGeneratePrintsAUsableMasterKey() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary))
        let (code, output) = try await hearth(["keys", "generate", "--version", "3"], [:])
        #expect(code == 0)
        let ring = try KeyRing(parsing: output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(ring.current.version == 3)
    }
}
