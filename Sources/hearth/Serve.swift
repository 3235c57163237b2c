import Foundation
import ArgumentParser
import HearthApp
import Hummingbird
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server (configured by HEARTH_* variables).")

    func run() async throws {
        let config = try Config.loadForCommand()
        try await ListenAddress.ensureFree(host: config.host, port: config.port)
        let app = try await buildApplication(config, logger: Logger(label: "hearth"))
        try await app.runService()
    }
}

struct Dev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run Hearth for development: private Postgres under .data/, migrations, demo tenant, server."
    )

    @Option(help: "Port of the private PostgreSQL server.")
    var postgresPort = 54329

    @Option(help: "Where the private PostgreSQL, the dev master key and dev.env live (default: .data).")
    var dataDirectory: String?

    func run() async throws {
        let config = try Config.loadForCommand()
        try await DevEnvironment.run(config, logger: Logger(label: "hearth"), postgresPort: postgresPort,
                                     dataDirectory: dataDirectory.map { URL(fileURLWithPath: $0) })
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending migrations from migrations/ (as HEARTH_MIGRATION_DATABASE_URL, else HEARTH_DATABASE_URL)."
    )

    func run() async throws {
        let config = try Config.loadForCommand()
        let report = try await AdminTasks.migrate(config, logger: Logger(label: "hearth.migrate"))
        for file in report.applied { print("applied \(file)") }
        print("\(report.applied.count) applied, \(report.alreadyApplied) already applied")
    }
}
