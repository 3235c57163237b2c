import Foundation
import Logging
import PostgresNIO

/// A private PostgreSQL server for development and tests, kept in one directory.
///
/// - `initdb` on first use (as the `postgres` OS user when we run as root: Postgres refuses root).
/// - Password (SCRAM) authentication on 127.0.0.1 and on its Unix socket in `pgdata/` (which Hearth connects
///   through); generated passwords live beside the data, mode 0600.
/// - A watchdog shell holds the read end of a pipe whose write end only this process has. When this process
///   exits — cleanly, on Ctrl-C or by crashing — the pipe closes and the watchdog stops Postgres
///   (`pg_ctl stop -m fast`), deleting the directory too when it is ephemeral. No orphaned servers.
public final class EmbeddedPostgres: @unchecked Sendable {
    public struct Endpoints: Sendable {
        /// The bootstrap superuser: migrations, creating databases.
        public let admin: DatabaseURL
        /// `hearth_app`: a plain login role that row-level security binds.
        public let app: DatabaseURL

        public init(admin: DatabaseURL, app: DatabaseURL) {
            self.admin = admin
            self.app = app
        }
    }

    public static let appRole = "hearth_app"

    let directory: URL
    let port: Int
    let ephemeral: Bool
    let logger: Logger
    private var watchdog: (pid: pid_t, input: Int32)?

    /// - Parameters:
    ///   - directory: holds `pgdata/`, the log and the generated passwords.
    ///   - ephemeral: delete `directory` when the server stops (tests).
    public init(directory: URL, port: Int, ephemeral: Bool, logger: Logger) {
        self.directory = directory
        self.port = port
        self.ephemeral = ephemeral
        self.logger = logger
    }

    var dataDirectory: URL { directory.appendingPathComponent("pgdata") }
    var logFile: URL { dataDirectory.appendingPathComponent("server.log") }
    static var runningAsRoot: Bool { geteuid() == 0 }

    /// Starts the server (initialising it on first use) and ensures `database` and the app role exist.
    public func start(database: String) async throws -> Endpoints {
        let binaries = try Self.binaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let superPassword = try secret(named: "superuser.password")
        let appPassword = try secret(named: "app.password")

        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            try await initialise(binaries: binaries, password: superPassword)
        }
        let pgCtl = binaries.appendingPathComponent("pg_ctl").path
        let status = try await Self.run([pgCtl, "-D", dataDirectory.path, "status"], asPostgres: true, in: directory)
        if status.code != 0 {
            // Room for many pools at once: each app instance keeps its whole pool open, and the test suite (the
            // ephemeral server) runs over a hundred instances at the same time.
            let options = "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories='\(dataDirectory.path)'"
                + " -c max_connections=\(ephemeral ? 1000 : 300)"
                + (ephemeral ? " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" : "")
            let started = try await Self.run(
                [pgCtl, "-D", dataDirectory.path, "-l", logFile.path, "-o", options, "-w", "-t", "60", "start"],
                asPostgres: true, in: directory
            )
            guard started.code == 0 else {
                throw ConfigError("PostgreSQL did not start: \(started.output)\n\(tail(of: logFile))")
            }
        }
        try startWatchdog(pgCtl: pgCtl)

        // Through its socket file (Postgres itself refuses to start when that path is too long for the system).
        let admin = DatabaseURL(host: "127.0.0.1", port: port, username: "postgres", password: superPassword, database: "postgres",
                                socketDirectory: dataDirectory.path)
        try await Self.prepare(admin: admin, appPassword: appPassword, database: database, logger: logger)
        return Endpoints(
            admin: admin.with(database: database),
            app: admin.with(database: database).with(username: Self.appRole, password: appPassword)
        )
    }

    /// Restarts the server as a failover or a minor upgrade does (`pg_ctl restart -m fast`: every connection is
    /// terminated, new ones are refused until it is back), keeping its options. For tests of what that does to Hearth.
    public func restart() async throws {
        let pgCtl = try Self.binaryDirectory().appendingPathComponent("pg_ctl").path
        let result = try await Self.run([pgCtl, "-D", dataDirectory.path, "-l", logFile.path, "-m", "fast", "-w", "-t", "60", "restart"],
                                        asPostgres: true, in: directory)
        guard result.code == 0 else { throw ConfigError("PostgreSQL did not restart: \(result.output)\n\(tail(of: logFile))") }
    }

    /// Stops the server now (otherwise it stops when this process exits).
    public func stop() {
        guard let watchdog else { return }
        close(watchdog.input)
        _ = ChildProcess.wait(watchdog.pid)
        self.watchdog = nil
    }

    // MARK: - Steps

    private func initialise(binaries: URL, password: String) async throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let passwordFile = directory.appendingPathComponent(".initdb-password")
        try PrivateFile.write(password, to: passwordFile)
        defer { try? FileManager.default.removeItem(at: passwordFile) }
        if Self.runningAsRoot {
            // Postgres runs as `postgres`: it must own its data and be able to reach it.
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            _ = try await Self.run(["chown", "-R", "postgres:postgres", dataDirectory.path, passwordFile.path], asPostgres: false, in: directory)
        }
        let result = try await Self.run(
            [binaries.appendingPathComponent("initdb").path, "-D", dataDirectory.path, "-U", "postgres",
             "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)", "-E", "UTF8", "--no-locale"],
            asPostgres: true, in: directory
        )
        guard result.code == 0 else { throw ConfigError("initdb failed: \(result.output)") }
    }

    private func startWatchdog(pgCtl: String) throws {
        let stopCommand = Self.command([pgCtl, "-D", dataDirectory.path, "stop", "-m", "fast"], asPostgres: true)
        let cleanup = ephemeral ? "rm -rf '\(directory.path)'" : ":"
        let script = "cat >/dev/null; \(stopCommand.map { "'\($0)'" }.joined(separator: " ")) >/dev/null 2>&1; \(cleanup)"
        // Its own session (setsid): a signal to our process group, such as Ctrl-C or a CI runner killing the
        // job, must not kill the watchdog before it has stopped Postgres.
        watchdog = try ChildProcess.startWithInputPipe(["setsid", "/bin/sh", "-c", script], in: "/")
    }

    /// Ensures the `hearth_app` login role (with `appPassword`) and `database` exist on the server `admin`
    /// points at. Also used by the tests against an external server.
    public static func prepare(admin: DatabaseURL, appPassword: String, database: String, logger: Logger) async throws {
        try await Database.connect(to: admin, logger: logger) { server in
            let client = server.client
            let role = appRole
            // Utility statements take no bind parameters; the password is our own hex string.
            let roleExists = try await client.query("SELECT 1 FROM pg_roles WHERE rolname = \(role)", logger: logger)
                .collect().count > 0
            let verb = roleExists ? "ALTER" : "CREATE"
            try await client.query(
                PostgresQuery(unsafeSQL: "\(verb) ROLE \(role) LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '\(appPassword)'"),
                logger: logger
            )
            let databaseExists = try await client.query("SELECT 1 FROM pg_database WHERE datname = \(database)", logger: logger)
                .collect().count > 0
            if !databaseExists {
                try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(database)\""), logger: logger)
            }
        }
    }

    // MARK: - Helpers

    /// A random password stored in `directory/name` (mode 0600), created on first use.
    private func secret(named name: String) throws -> String {
        try PrivateFile.readOrCreate(directory.appendingPathComponent(name)) { Secrets.randomHex(byteCount: 24) }
    }

    private func tail(of file: URL) -> String {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return "" }
        return text.split(separator: "\n").suffix(15).joined(separator: "\n")
    }

    /// Where `initdb`, `pg_ctl` and `postgres` live: `HEARTH_PG_BIN`, Debian's newest
    /// `/usr/lib/postgresql/N/bin`, or the `PATH`.
    public static func binaryDirectory() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let configured = environment["HEARTH_PG_BIN"] { candidates.append(configured) }
        let debianRoot = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debianRoot)) ?? []
        candidates += versions.compactMap(Int.init).sorted(by: >).map { "\(debianRoot)/\($0)/bin" }
        candidates += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for candidate in candidates
        where FileManager.default.isExecutableFile(atPath: candidate + "/initdb")
            && FileManager.default.isExecutableFile(atPath: candidate + "/pg_ctl") {
            return URL(fileURLWithPath: candidate)
        }
        throw ConfigError("PostgreSQL server binaries (initdb, pg_ctl) not found: install them (apt-get install -y postgresql) or set HEARTH_PG_BIN")
    }

    static func command(_ arguments: [String], asPostgres: Bool) -> [String] {
        asPostgres && runningAsRoot ? ["runuser", "-u", "postgres", "--"] + arguments : arguments
    }

    static func run(_ arguments: [String], asPostgres: Bool, in directory: URL) async throws -> (code: Int32, output: String) {
        // Postgres' own user may not be able to enter our working directory.
        try await ChildProcess.run(command(arguments, asPostgres: asPostgres), in: asPostgres && runningAsRoot ? "/" : directory.path)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on right now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ConfigError("cannot open a socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw ConfigError("cannot bind a socket") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
