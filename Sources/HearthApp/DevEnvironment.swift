import Console
import Foundation
import HearthPlatform
import Hummingbird
import Logging

/// `hearth dev`: everything a developer needs from one command. A private Postgres under `.data/`
/// (unless HEARTH_DATABASE_URL points elsewhere), a master key kept in `.data/master.key`, migrations,
/// a demo tenant, then the server. Ctrl-C stops the server gracefully; the Postgres watchdog then stops
/// the database.
///
/// It also writes `dev.env` (mode 0600) beside the data: the database URLs and master key, so admin commands
/// can reach the dev database (`set -a; . .data/dev.env; set +a; hearth tenant list`). `scripts/bench` uses it.
public enum DevEnvironment {
    public static let demoTenantSlug = "demo"
    /// The development console's platform admin, created on the first start.
    public static let consoleOperator = "dev@example.com"

    public static func run(_ baseConfig: Config, logger: Logger, postgresPort: Int, dataDirectory: URL? = nil) async throws {
        var config = baseConfig
        try await ListenAddress.ensureFree(host: config.host, port: config.port)
        let dataDirectory = dataDirectory ?? config.resourcesDirectory.appendingPathComponent(".data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        if config.masterKeys == nil {
            config.masterKeys = try KeyRing(parsing: try persistentMasterKey(in: dataDirectory))
        }
        var postgres: EmbeddedPostgres?
        if config.databaseURL == nil {
            let embedded = EmbeddedPostgres(
                directory: dataDirectory.appendingPathComponent("postgres"), port: postgresPort, ephemeral: false, logger: logger
            )
            let endpoints = try await embedded.start(database: "hearth")
            config.databaseURL = endpoints.app
            config.migrationDatabaseURL = endpoints.admin
            postgres = embedded
            logger.info("PostgreSQL is running", metadata: ["url": .string(endpoints.app.description)])
        }
        defer { postgres?.stop() }
        try writeEnvironmentFile(config, in: dataDirectory)

        let report = try await AdminTasks.migrate(config, logger: logger)
        logger.info("migrations", metadata: ["applied": .stringConvertible(report.applied.count), "already": .stringConvertible(report.alreadyApplied)])
        let clientKey = try await AdminTasks.withTenants(config, logger: logger) { tenants in
            guard let tenant = try await tenants.find(slug: demoTenantSlug) else {
                return try await tenants.create(
                    slug: demoTenantSlug, name: "Demo Coaching App",
                    settings: .init(appleAudiences: ["com.example.hearth.demo"])
                ).clientKey
            }
            guard let key = try await tenants.activeClientKeys(tenantID: tenant.id).first?.key else {
                return try await tenants.addClientKey(slug: demoTenantSlug)
            }
            return key
        }
        let console = try await consoleSignIn(config, dataDirectory: dataDirectory, logger: logger)
        print("""

        Hearth is starting on http://\(config.host):\(config.port)
          demo tenant client key:  \(clientKey)
          try:  curl -s -X POST -H 'X-Hearth-Client-Key: \(clientKey)' http://\(config.host):\(config.port)/v1/auth/anonymous
          API:  http://\(config.host):\(config.port)/openapi.yaml
          console:  http://\(config.host):\(config.port)/console/sign-in
        \(console)
        Press Ctrl-C to stop Hearth and its database.

        """)
        let app = try await buildApplication(config, logger: logger)
        try await app.runService()
    }

    /// How to sign in to the console: on the first start a platform admin is created and its password shown, once;
    /// afterwards, the command that creates another.
    public static func consoleSignIn(_ config: Config, dataDirectory: URL, logger: Logger) async throws -> String {
        let password = Secrets.randomHex(byteCount: 12)
        do {
            _ = try await AdminTasks.createOperator(config, logger: logger, email: consoleOperator, password: password,
                                                    role: .platformAdmin, tenantSlug: nil)
            return "    sign in as \(consoleOperator) with the password \(password) (shown this once: keep it)"
        } catch let error as ConfigError where error.isConflict {
            let env = dataDirectory.appendingPathComponent("dev.env").path
            return """
                sign in as \(consoleOperator) (its password was shown at the first start), or create another operator:
                  printf '%s\\n' 'a passphrase of 12+ characters' | (set -a; . \(env); set +a; .build/debug/hearth operator create --email you@example.com --role platform_admin)
            """
        }
    }

    /// `dev.env`: what an admin command needs to reach this dev database.
    static func writeEnvironmentFile(_ config: Config, in directory: URL) throws {
        var lines: [String] = []
        if let url = config.databaseURL { lines.append("HEARTH_DATABASE_URL=\(url.string)") }
        if let url = config.migrationDatabaseURL { lines.append("HEARTH_MIGRATION_DATABASE_URL=\(url.string)") }
        if let keys = config.masterKeys { lines.append("HEARTH_MASTER_KEY=\(keys.specification)") }
        try PrivateFile.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("dev.env"))
    }

    /// The dev master key, generated once and kept (mode 0600) so encrypted data survives restarts.
    static func persistentMasterKey(in directory: URL) throws -> String {
        try PrivateFile.readOrCreate(directory.appendingPathComponent("master.key")) { KeyRing.generateSpecification(version: 1) }
    }
}
