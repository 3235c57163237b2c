import Foundation
import PostgresNIO

/// A parsed `postgres://user:password@host:port/database?sslmode=…` URL.
///
/// We parse it ourselves (rather than keep a URL string around) so a bad value fails at startup with a
/// message that names the variable, and so the password never ends up in a log line.
///
/// `?host=/directory` connects through the Unix socket `/directory/.s.PGSQL.<port>` instead of TCP, as libpq reads
/// it (so `psql` takes the same URL): for a Postgres on the same machine, where a round trip through a socket file
/// costs both sides less than one through the loopback's TCP (docs/performance-notes.md).
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var requireTLS: Bool
    /// The directory of the server's Unix socket; `nil`: TCP to `host`.
    public var socketDirectory: String?

    public init(host: String, port: Int, username: String, password: String?, database: String, requireTLS: Bool = false,
                socketDirectory: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.requireTLS = requireTLS
        self.socketDirectory = socketDirectory
    }

    /// The longest socket path the system takes (`sun_path` holds 108 bytes with its terminating zero).
    static let maximumSocketPathLength = 107

    /// The socket file in `socketDirectory`.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    public init(_ string: String) throws {
        guard let components = URLComponents(string: string),
              let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql"
        else { throw ConfigError("database URL must look like postgres://user:password@host:5432/database") }
        guard let host = components.host, !host.isEmpty else { throw ConfigError("database URL has no host") }
        guard let user = components.user, !user.isEmpty else { throw ConfigError("database URL has no user name") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw ConfigError("database URL has no database name") }
        let sslmode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard ["disable", "require", "verify-full"].contains(sslmode) else {
            throw ConfigError("database URL sslmode must be disable, require or verify-full")
        }
        let socketDirectory = components.queryItems?.first(where: { $0.name == "host" })?.value
        if let socketDirectory {
            guard socketDirectory.hasPrefix("/") else { throw ConfigError("database URL host= must be a socket directory (an absolute path)") }
            guard sslmode == "disable" else { throw ConfigError("database URL host= (a Unix socket) cannot be used with sslmode=\(sslmode)") }
        }
        self.init(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password?.removingPercentEncoding,
            database: database,
            requireTLS: sslmode != "disable",
            socketDirectory: socketDirectory
        )
        if let socketPath, socketPath.utf8.count > Self.maximumSocketPathLength {
            throw ConfigError("database URL host= makes a socket path longer than \(Self.maximumSocketPathLength) bytes: \(socketPath)")
        }
    }

    /// The same server and credentials, another database (used to clone test databases).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The same server, another role.
    public func with(username: String, password: String?) -> DatabaseURL {
        var copy = self
        copy.username = username
        copy.password = password
        return copy
    }

    public var string: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = username
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        if requireTLS { components.queryItems = [URLQueryItem(name: "sslmode", value: "require")] }
        if let socketDirectory { components.queryItems = [URLQueryItem(name: "host", value: socketDirectory)] }
        return components.string!
    }

    /// Never prints the password.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)" + (socketDirectory.map { "?host=\($0)" } ?? "")
    }

    public func clientConfiguration() throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath {
            configuration = PostgresClient.Configuration(unixSocketPath: socketPath, username: username, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS = requireTLS ? .require(.makeClientConfiguration()) : .disable
            configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(30))
        return configuration
    }
}

/// A configuration value that cannot be used; the message says which and why.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// What was to be created exists already (a 409 where a page answers).
    public let isConflict: Bool
    public init(_ description: String, isConflict: Bool = false) {
        self.description = description
        self.isConflict = isConflict
    }
}
