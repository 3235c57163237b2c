import NIOHTTP1

/// A provider's base URL taken apart once, for the requests made under it: `http(s)://host[:port][/path]`.
///
/// Read as UTF-8 bytes, not characters: the providers of a turn are built with it on every turn, and
/// walking `Character`s (grapheme by grapheme) made it 0.4% of a turn's CPU.
struct ProviderURL: Sendable {
    let origin: ProviderTransport.Origin
    /// The path without a trailing slash: `/v1`, or empty.
    let path: String
    /// The `Host` header: the port only when it is not the scheme's.
    let hostHeader: String

    init(_ text: String) throws {
        let utf8 = text.utf8
        let tls: Bool
        var start: String.UTF8View.Index
        if text.hasPrefix("https://") {
            (tls, start) = (true, utf8.index(utf8.startIndex, offsetBy: 8))
        } else if text.hasPrefix("http://") {
            (tls, start) = (false, utf8.index(utf8.startIndex, offsetBy: 7))
        } else {
            throw ProviderError(.misconfigured, "a provider's base URL must start with http:// or https://")
        }
        let authorityEnd = utf8[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? utf8.endIndex
        let pathBytes = utf8[authorityEnd...]
        guard !pathBytes.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            throw ProviderError(.misconfigured, "a provider's base URL takes no query or fragment")
        }
        var hostRange = start..<authorityEnd
        var portText: Substring?
        if utf8[start...].first == UInt8(ascii: "[") {
            // An IPv6 address: [::1]:8080.
            guard let close = utf8[start..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else {
                throw ProviderError(.misconfigured, "unclosed [ in a provider's base URL")
            }
            hostRange = utf8.index(after: start)..<close
            start = utf8.index(after: close)
            if start < authorityEnd {
                guard utf8[start] == UInt8(ascii: ":") else {
                    throw ProviderError(.misconfigured, "unexpected text after ] in a provider's base URL")
                }
                portText = Substring(utf8[utf8.index(after: start)..<authorityEnd])
            }
        } else if let colon = utf8[start..<authorityEnd].firstIndex(of: UInt8(ascii: ":")) {
            hostRange = start..<colon
            portText = Substring(utf8[utf8.index(after: colon)..<authorityEnd])
        }
        let host = String(Substring(utf8[hostRange]))
        guard !host.isEmpty, !host.utf8.contains(UInt8(ascii: "@")) else {
            throw ProviderError(.misconfigured, "a provider's base URL needs a host (and no user name)")
        }
        let port: Int
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw ProviderError(.misconfigured, "a provider's base URL has an invalid port")
            }
            port = value
        } else {
            port = tls ? 443 : 80
        }
        origin = .init(tls: tls, host: host, port: port)
        var path = Substring(pathBytes)
        if path.utf8.last == UInt8(ascii: "/") { path = path.dropLast() }
        self.path = String(path)
        let bracketed = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        hostHeader = portText == nil ? bracketed : "\(bracketed):\(port)"
    }
}
