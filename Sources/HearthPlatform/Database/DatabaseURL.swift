import Foundation
import PostgresNIO

/// A parsed `postgres://user:password@host:port/database?sslmode=…` URL.
///
/// We parse it ourselves (rather than keep a URL string around) so a bad value fails at startup with a
/// message that names the variable, and so the password never ends up in a log line.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var requireTLS: Bool

    public init(host: String, port: Int, username: String, password: String?, database: String, requireTLS: Bool = false) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.requireTLS = requireTLS
    }

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
        self.init(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password?.removingPercentEncoding,
            database: database,
            requireTLS: sslmode != "disable"
        )
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
        return components.string!
    }

    /// Never prints the password.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    public func clientConfiguration() throws -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = requireTLS ? .require(.makeClientConfiguration()) : .disable
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls
        )
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
