import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

/// JSON conveniences over Hummingbird's test client.
public struct APIResponse: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let body: ByteBuffer

    public var text: String { String(buffer: body) }

    /// The body as a JSON object (empty when it is not one).
    public var json: [String: any Sendable] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: any Sendable] ?? [:]
    }

    /// `error.code` of the JSON error shape.
    public var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    public var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }

    public subscript(key: String) -> (any Sendable)? { json[key] }

    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(buffer: body))
    }
}

extension TestClientProtocol {
    /// Sends a request; `json` is encoded as the body, `clientKey` and `token` become headers.
    public func call(
        _ method: HTTPRequest.Method,
        _ path: String,
        clientKey: String? = nil,
        token: String? = nil,
        json: [String: any Sendable]? = nil,
        rawBody: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> APIResponse {
        var headers = extra
        if let clientKey { headers[HTTPField.Name("X-Hearth-Client-Key")!] = clientKey }
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        } else if let rawBody {
            body = ByteBuffer(string: rawBody)
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        let response = try await execute(uri: path, method: method, headers: headers, body: body)
        return APIResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// Sends raw bytes as the body, with their `Content-Type` (an upload).
    public func upload(_ method: HTTPRequest.Method, _ path: String, clientKey: String, token: String, bytes: [UInt8],
                       contentType: String) async throws -> APIResponse {
        let headers: HTTPFields = [HTTPField.Name("X-Hearth-Client-Key")!: clientKey, .authorization: "Bearer \(token)", .contentType: contentType]
        let response = try await execute(uri: path, method: method, headers: headers, body: ByteBuffer(bytes: bytes))
        return APIResponse(status: response.status, headers: response.headers, body: response.body)
    }
}

extension TestClientProtocol {
    /// A GET as a browser sends it to `host` (the `Host` header the harness otherwise fixes to localhost): for the
    /// public pages, which tell tenants apart by the host their links live on.
    public func browse(_ path: String, host: String = "localhost", headers extra: HTTPFields = [:]) async throws -> APIResponse {
        guard let port else { throw TestTimeout() }
        let client = TestClient(host: "localhost", port: port)
        client.connect()
        var headers: HTTPFields = [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Version/18.0 Mobile Safari/604.1"]
        for field in extra { headers[field.name] = field.value }  // a caller's User-Agent replaces the browser's
        let response: TestClient.Response
        do {
            response = try await client.execute(TestClient.Request(path, method: .get, authority: host, headers: headers))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return APIResponse(status: response.status, headers: response.headers, body: response.body ?? ByteBuffer())
    }
}
