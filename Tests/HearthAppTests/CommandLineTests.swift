import Billing
import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import NIOCore
import NIOPosix
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

    /// An empty database of its own and the environment pointing the CLI at it.
    func emptyDatabase() async throws -> (environment: [String: String], endpoints: EmbeddedPostgres.Endpoints, name: String) {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build the hearth product first (scripts/test does)")
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
        return (environment, endpoints, name)
    }

    @Test func migrateTenantAndOperatorCommandsWorkEndToEnd() async throws {
        // An empty database: the CLI migrates it from scratch.
        let (environment, endpoints, name) = try await emptyDatabase()
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

    @Test func appStoreSettingsAreSetAndSignedPayloadsVerifiedOffline() async throws {
        let (environment, _, _) = try await emptyDatabase()
        #expect(try await hearth(["migrate"], environment).0 == 0)
        #expect(try await hearth(["tenant", "create", "--slug", "store-coach", "--name", "Store Coach"], environment).0 == 0)
        let ca = try AppStoreTestCA()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root.cer")
        try ca.rootDER.write(to: root)

        let incomplete = try await hearth(["tenant", "appstore", "store-coach", "--bundle-id", "com.example.coach"], environment)
        #expect(incomplete.0 != 0 && incomplete.1.contains("--environment"))
        let production = try await hearth(["tenant", "appstore", "store-coach", "--bundle-id", "com.example.coach", "--environment", "Production"], environment)
        #expect(production.0 != 0 && production.1.contains("appAppleId"), "\(production.1)")
        let set = try await hearth(["tenant", "appstore", "store-coach", "--bundle-id", "com.example.coach", "--app-apple-id", "1234567890",
                                    "--environment", "Sandbox", "--root-certificate", root.path], environment)
        #expect(set.0 == 0 && set.1.contains("bundle com.example.coach") && set.1.contains("1 configured"), "\(set.1)")

        let transaction = TransactionInfo(transactionId: "7", originalTransactionId: "7", bundleId: "com.example.coach",
                                          productId: "com.example.coach.monthly", purchaseDate: 1_760_000_000_000, expiresDate: 1_762_592_000_000,
                                          appAccountToken: nil, environment: "Sandbox", signedDate: 1_760_000_000_000)
        let notification = NotificationPayload(
            notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", notificationUUID: UUID().uuidString.lowercased(), signedDate: 1_760_000_000_000,
            data: .init(appAppleId: nil, bundleId: "com.example.coach", environment: "Sandbox", signedTransactionInfo: try ca.sign(transaction), status: 1)
        )
        let body = folder.appendingPathComponent("notification.json")
        try Data(#"{"signedPayload": "\#(try ca.sign(notification))"}"#.utf8).write(to: body)
        let verified = try await hearth(["appstore", "verify", "--tenant", "store-coach", body.path], environment)
        #expect(verified.0 == 0, "\(verified.1)")
        #expect(verified.1.contains(#""notificationType" : "SUBSCRIBED""#) && verified.1.contains(#""productId" : "com.example.coach.monthly""#))

        let otherApp = folder.appendingPathComponent("other.jws")
        var foreign = transaction
        foreign.bundleId = "com.example.other"
        try Data(try ca.sign(foreign).utf8).write(to: otherApp)
        let refused = try await hearth(["appstore", "verify", "--tenant", "store-coach", otherApp.path], environment)
        #expect(refused.0 == 2 && refused.1.contains("invalid: invalid_app_identifier: bundle id com.example.other is not this tenant's com.example.coach"),
                "\(refused.1)")
        let stranger = folder.appendingPathComponent("stranger.jws")
        try Data(try AppStoreTestCA().sign(transaction).utf8).write(to: stranger)
        let untrusted = try await hearth(["appstore", "verify", "--tenant", "store-coach", stranger.path], environment)
        #expect(untrusted.0 == 2 && untrusted.1.contains("invalid: verification_failure: no chain"), "\(untrusted.1)")
    }

    @Test func keysGeneratePrintsAUsableMasterKey() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary))
        let (code, output) = try await hearth(["keys", "generate", "--version", "3"], [:])
        #expect(code == 0)
        let ring = try KeyRing(parsing: output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(ring.current.version == 3)
    }

    /// A taken port is one clear error at once, before the private database starts (it used to hang `hearth dev`).
    @Test func serveAndDevRefuseATakenPortAtOnce() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary))
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-dev-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["HEARTH_PORT": String(port), "HEARTH_MASTER_KEY": KeyRing.generateSpecification(version: 1)]
        let serve = try await hearth(["serve"], environment.merging(["HEARTH_DATABASE_URL": "postgres://hearth_app:pw@127.0.0.1:1/hearth"]) { $1 })
        let dev = try await hearth(["dev", "--data-directory", folder.path], environment)
        for (code, output) in [serve, dev] {
            #expect(code == 1 && output.contains("cannot listen on 127.0.0.1:\(port)"), "\(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("postgres").path))
        try await listener.close()
    }

    /// `hearth dev` says how to reach the console: its first start creates a platform admin and shows the password
    /// once, which signs in; later starts give the command that creates another operator.
    @Test func devShowsHowToSignInToTheConsole() async throws {
        let hearth = try await TestHearth.make()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-dev-\(UUID().uuidString)")
        let first = try await DevEnvironment.consoleSignIn(hearth.config, dataDirectory: folder, logger: TestLogs.quiet)
        let password = try #require(first.split(separator: " ").firstIndex(of: "password").map { String(first.split(separator: " ")[$0 + 1]) })
        let again = try await DevEnvironment.consoleSignIn(hearth.config, dataDirectory: folder, logger: TestLogs.quiet)
        #expect(!again.contains(password))
        #expect(again.contains("hearth operator create --email you@example.com --role platform_admin"))
        try await hearth.test { client in
            let signedIn = try await client.call(.post, "/operator/v1/sessions", json: ["email": DevEnvironment.consoleOperator, "password": password])
            #expect(signedIn.status == .created || signedIn.status == .ok, "\(signedIn.text)")
        }
    }

    /// Training options out of range are refused before any file is read or model written.
    @Test func trainRefusesThresholdsAndFittingOptionsOutOfRange() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary))
        for (arguments, message) in [
            (["crisis", "--threshold", "1.5"], "--threshold must be a probability from 0 to 1, got 1.5"),
            (["crisis", "--words-only-threshold=-0.2"], "--words-only-threshold must be a probability from 0 to 1, got -0.2"),
            (["moderation", "--threshold", "2"], "--threshold must be a probability from 0 to 1, got 2.0"),
            (["moderation", "--iterations", "0"], "--iterations must be at least 1, got 0"),
            (["crisis", "--c", "0"], "--c must be a positive number, got 0.0"),
        ] {
            let (code, output) = try await hearth(["train"] + arguments + ["--output", "/nonexistent/weights.swift", "missing.jsonl"], [:])
            #expect(code == 64 && output.contains(message), "\(arguments): \(output)")
        }
    }
}

