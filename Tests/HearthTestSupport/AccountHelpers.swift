import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

/// The fields of a token grant the tests look at.
public struct Grant: Decodable, Sendable {
    public struct User: Decodable, Sendable {
        public let id: UUID
        public let isAnonymous: Bool
        public let email: String?
        public let signInMethods: [String]
    }

    public let user: User
    public let isNewUser: Bool
    public let accessToken: String
    public let refreshToken: String
    public let expiresIn: Int
}

extension TestClientProtocol {
    public func anonymous(clientKey: String) async throws -> Grant {
        let response = try await call(.post, "/v1/auth/anonymous", clientKey: clientKey)
        #expect(response.status == .created)
        return try response.decode(Grant.self)
    }

    public func signUp(clientKey: String, email: String, password: String = "correct horse battery", token: String? = nil) async throws -> Grant {
        let response = try await call(.post, "/v1/auth/email/signup", clientKey: clientKey, token: token, json: ["email": email, "password": password])
        #expect(response.status == (token == nil ? .created : .ok), "\(response.text)")
        return try response.decode(Grant.self)
    }
}

/// A real HTTP server on loopback serving a JWKS document, standing in for appleid.apple.com.
public final class JWKSServer: Sendable {
    private let document: NIOLockedValueBox<String>
    private let fetches = NIOLockedValueBox(0)

    public init(json: String) {
        document = .init(json)
    }

    public var fetchCount: Int { fetches.withLockedValue { $0 } }

    public func replace(json: String) { document.withLockedValue { $0 = json } }

    /// Runs `body` with the URL of the keys while the server is up.
    public func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.get("auth/keys") { _, _ -> Response in
            self.fetches.withLockedValue { $0 += 1 }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: self.document.withLockedValue { $0 }))
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port!)/auth/keys")
        }
    }
}
