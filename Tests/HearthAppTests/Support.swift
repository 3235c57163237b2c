import AsyncHTTPClient
import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import Hummingbird
import NIOCore

/// A plain HTTP client on loopback, for tests that run the server themselves. Its timeout only bounds a failure
/// (a server that never answers): early in a full parallel run a healthy answer can take seconds.
enum HTTPProbe {
    static func get(port: Int, path: String, timeout: TimeAmount = .seconds(60)) async throws -> (Int, String) {
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }
}

