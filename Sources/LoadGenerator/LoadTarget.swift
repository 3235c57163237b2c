import Foundation

/// Where load goes. Loopback only unless the operator says otherwise: a load generator pointed at someone
/// else's server by a typo is an attack.
public struct LoadTarget: Sendable, Equatable {
    /// Scheme, host and port, no trailing slash.
    public let origin: String
    /// Path prefix, no trailing slash (`/v1` for a mock's OpenAI base URL, empty for Hearth).
    public let path: String

    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ string: String, allowRemote: Bool) throws {
        guard let components = URLComponents(string: string), let scheme = components.scheme, ["http", "https"].contains(scheme),
              let rawHost = components.host, !rawHost.isEmpty else {
            throw Refused(description: "\(string) is not an http(s) URL")
        }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        guard allowRemote || Self.isLoopback(host) else {
            throw Refused(description: "\(host) is not a loopback address; pass --allow-remote to load a remote server")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        let printedHost = host.contains(":") ? "[\(host)]" : host
        origin = "\(scheme)://\(printedHost)\(port)"
        path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
    }

    public func url(_ suffix: String) -> String { origin + path + suffix }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".")
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
