import NIOHTTP1

/// A provider's base URL taken apart once, for the requests made under it: `http(s)://host[:port][/path]`.
struct ProviderURL: Sendable {
    let origin: ProviderTransport.Origin
    /// The path without a trailing slash: `/v1`, or empty.
    let path: String
    /// The `Host` header: the port only when it is not the scheme's.
    let hostHeader: String

    init(_ text: String) throws {
        let tls: Bool
        var rest: Substring
        if text.hasPrefix("https://") {
            (tls, rest) = (true, text.dropFirst(8))
        } else if text.hasPrefix("http://") {
            (tls, rest) = (false, text.dropFirst(7))
        } else {
            throw ProviderError(.misconfigured, "a provider's base URL must start with http:// or https://")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        rest = rest.dropFirst(authority.count)
        guard rest.allSatisfy({ $0 != "?" && $0 != "#" }) else {
            throw ProviderError(.misconfigured, "a provider's base URL takes no query or fragment")
        }
        let host: Substring
        var port: Substring?
        if authority.hasPrefix("[") {
            // An IPv6 address: [::1]:8080.
            guard let close = authority.firstIndex(of: "]") else { throw ProviderError(.misconfigured, "unclosed [ in a provider's base URL") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ProviderError(.misconfigured, "unexpected text after ] in a provider's base URL") }
                port = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains("@") else { throw ProviderError(.misconfigured, "a provider's base URL needs a host (and no user name)") }
        let number: Int
        if let port {
            guard let value = Int(port), (1...65535).contains(value) else {
                throw ProviderError(.misconfigured, "a provider's base URL has an invalid port")
            }
            number = value
        } else {
            number = tls ? 443 : 80
        }
        origin = .init(tls: tls, host: String(host), port: number)
        path = rest.hasSuffix("/") ? String(rest.dropLast()) : String(rest)
        let bracketed = host.contains(":") ? "[\(host)]" : String(host)
        hostHeader = port == nil ? bracketed : "\(bracketed):\(number)"
    }
}
