import AsyncHTTPClient
import Foundation
import HearthPlatform
import JWTKit
import NIOCore

/// Apple's signing keys for identity tokens, fetched from a JWKS document and cached.
///
/// The source is configurable (`HEARTH_APPLE_JWKS_URL`: an http(s) URL, Apple's by default, or a
/// `file://` path) so tests can serve their own keys from a real HTTP server on loopback. An unknown `kid`
/// triggers a refetch — Apple rotates keys — but at most once per `refetchInterval`, so forged tokens with
/// random kids cannot make us hammer the source.
public actor JWKSProvider {
    public enum Source: Sendable, Equatable {
        case url(String)
        case file(String)

        public static let apple = Source.url("https://appleid.apple.com/auth/keys")

        public init(_ string: String) throws {
            if string.hasPrefix("file://") {
                self = .file(String(string.dropFirst("file://".count)))
            } else if string.hasPrefix("https://") || string.hasPrefix("http://") {
                self = .url(string)
            } else {
                throw ConfigError("HEARTH_APPLE_JWKS_URL must be an http(s):// URL or a file:// path")
            }
        }
    }

    let source: Source
    let httpClient: HTTPClient
    let refetchInterval: Duration
    private var keys: JWTKeyCollection?
    private var knownKids: Set<String> = []
    private var lastFetch: ContinuousClock.Instant?

    public init(source: Source, httpClient: HTTPClient, refetchInterval: Duration = .seconds(60)) {
        self.source = source
        self.httpClient = httpClient
        self.refetchInterval = refetchInterval
    }

    /// The key collection holding `kid`, or `nil` if the source does not have it.
    func keys(containing kid: String) async throws -> JWTKeyCollection? {
        if let keys, knownKids.contains(kid) { return keys }
        if let lastFetch, ContinuousClock.now - lastFetch < refetchInterval, keys != nil { return nil }
        try await refresh()
        return knownKids.contains(kid) ? keys : nil
    }

    private func refresh() async throws {
        lastFetch = .now
        let json = try await fetch()
        let jwks = try JSONDecoder().decode(JWKS.self, from: Data(json.utf8))
        let collection = JWTKeyCollection()
        try await collection.add(jwks: jwks)
        keys = collection
        knownKids = Set(jwks.keys.compactMap { $0.keyIdentifier?.string })
    }

    private func fetch() async throws -> String {
        switch source {
        case .file(let path):
            return try String(contentsOfFile: path, encoding: .utf8)
        case .url(let url):
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await httpClient.execute(request, timeout: .seconds(5))
            guard response.status == .ok else { throw JWKSUnavailable(reason: "HTTP \(response.status.code)") }
            let body = try await response.body.collect(upTo: 256 * 1024)
            return String(buffer: body)
        }
    }
}

struct JWKSUnavailable: Error, CustomStringConvertible {
    let reason: String
    var description: String { "Apple's signing keys could not be fetched: \(reason)" }
}
