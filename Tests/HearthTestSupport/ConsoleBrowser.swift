import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// A browser's view of the console for handler tests: a cookie jar over the test client, forms posted the way a
/// browser posts them, and the CSRF token read from the page it came from.
public actor ConsoleBrowser {
    let client: any TestClientProtocol
    public private(set) var cookies: [String: String] = [:]

    public init(_ client: any TestClientProtocol) {
        self.client = client
    }

    public func get(_ path: String) async throws -> APIResponse {
        try await send(.get, path, body: nil)
    }

    /// Posts `fields` as `application/x-www-form-urlencoded`.
    public func post(_ path: String, _ fields: [(String, String)]) async throws -> APIResponse {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await send(.post, path, body: body)
    }

    /// Signs in through the sign-in page; returns the response to the form's post (303 to /console on success).
    @discardableResult
    public func signIn(_ email: String, password: String = "operator-passphrase-1") async throws -> APIResponse {
        let form = try await get("/console/sign-in")
        return try await post("/console/sign-in", [("csrf", try Self.csrf(in: form)), ("email", email), ("password", password)])
    }

    public func forget(_ name: String) {
        cookies[name] = nil
    }

    /// The CSRF token of the first form on a page.
    public static func csrf(in page: APIResponse) throws -> String {
        let match = try #require(page.text.firstMatch(of: #/name="csrf" value="([^"]+)"/#))
        return String(match.1)
    }

    /// The attributes of the `Set-Cookie` for `name` on a response.
    public static func setCookie(_ name: String, in response: APIResponse) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix("\(name)=") }
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, body: String?) async throws -> APIResponse {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        for line in response.headers[values: .setCookie] {
            let pair = line.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
            guard let name = pair.first.map(String.init) else { continue }
            let value = pair.count > 1 ? String(pair[1]) : ""
            cookies[name] = value.isEmpty || line.contains("Max-Age=0") ? nil : value
        }
        return APIResponse(status: response.status, headers: response.headers, body: response.body)
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
