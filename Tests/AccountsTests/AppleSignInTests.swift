import Foundation
import HearthPlatform
import HummingbirdTesting
import HearthTestSupport
import JWTKit
import Testing

/// Sign in with Apple against our own keys, served by a real HTTP server on loopback.
@Suite struct AppleSignInTests {
    static let audience = "com.example.coach"

    /// A Hearth whose JWKS source is `server`, and a tenant accepting `audience`.
    func withApple(
        _ keys: AppleTestKeys, server: JWKSServer? = nil,
        _ body: @escaping @Sendable (TestHearth, String, any TestClientProtocolBox) async throws -> Void
    ) async throws {
        let server = server ?? JWKSServer(json: keys.jwksJSON)
        try await server.run { url in
            let hearth = try await TestHearth.make { $0.accounts.appleJWKS = .url(url) }
            let (_, key) = try await hearth.createTenant(settings: .init(appleAudiences: ["com.example.other", Self.audience]))
            try await hearth.test { client in try await body(hearth, key, ClientBox(client: client)) }
        }
    }

    @Test(arguments: [AppleTestKeys.Algorithm.rs256, .es256])
    func aValidTokenCreatesThenSignsInTheSameAccount(_ algorithm: AppleTestKeys.Algorithm) async throws {
        let keys = try await AppleTestKeys.make()
        try await withApple(keys) { _, key, box in
            let claims = AppleTestKeys.Claims(subject: "000111.apple.user", audience: Self.audience, rawNonce: "nonce-1")
            let first = try await box.apple(key, token: try await keys.sign(claims, with: algorithm), nonce: "nonce-1")
            #expect(first.status == .created)
            let created = try first.decode(Grant.self)
            #expect(created.isNewUser && created.user.signInMethods == ["apple"] && !created.user.isAnonymous)
            let again = try await box.apple(key, token: try await keys.sign(claims, with: algorithm), nonce: "nonce-1")
            #expect(again.status == .ok)
            #expect(try again.decode(Grant.self).user.id == created.user.id)
        }
    }

    @Test func upgradingAnAnonymousAccountWithAppleKeepsIt() async throws {
        let keys = try await AppleTestKeys.make()
        try await withApple(keys) { _, key, box in
            let anonymous = try await box.client.anonymous(clientKey: key)
            let token = try await keys.sign(.init(subject: "apple-upgrade", audience: Self.audience, rawNonce: "n"))
            let response = try await box.apple(key, token: token, nonce: "n", accessToken: anonymous.accessToken)
            #expect(response.status == .ok)
            let grant = try response.decode(Grant.self)
            #expect(grant.user.id == anonymous.user.id)
            #expect(!grant.user.isAnonymous && grant.user.signInMethods == ["apple"])
            // A second anonymous account cannot take the same Apple ID.
            let other = try await box.client.anonymous(clientKey: key)
            let conflict = try await box.apple(key, token: token, nonce: "n", accessToken: other.accessToken)
            #expect(conflict.status == .conflict)
            #expect(conflict.errorCode == "apple_id_in_use")
        }
    }

    @Test func tokensFailingAnyCheckAreRejectedWithTheReason() async throws {
        let keys = try await AppleTestKeys.make()
        let strangerKeys = try await AppleTestKeys.make()
        try await withApple(keys) { _, key, box in
            func claims(_ change: (inout AppleTestKeys.Claims) -> Void) -> AppleTestKeys.Claims {
                var claims = AppleTestKeys.Claims(subject: "s", audience: Self.audience, rawNonce: "n")
                change(&claims)
                return claims
            }
            let cases: [(String, String)] = [
                ("another app", try await keys.sign(claims { $0.aud = "com.someone.else" })),
                ("not issued by Apple", try await keys.sign(claims { $0.iss = "https://evil.example" })),
                ("expired", try await keys.sign(claims { $0.exp = .init(value: Date().addingTimeInterval(-300)) })),
                ("issued in the future", try await keys.sign(claims { $0.iat = .init(value: Date().addingTimeInterval(3600)) })),
                ("nonce does not match", try await keys.sign(claims { $0.nonce = AppleTestKeys.hashedNonce("other") })),
                ("nonce does not match", try await keys.sign(claims { $0.nonce = nil })),
                // Same kid, different key: the signature fails.
                ("signature does not verify", try await strangerKeys.sign(claims { _ in })),
                ("not a JWT", "abc.def"),
                ("not signed with RS256 or ES256", Self.unsigned(claims { _ in })),
            ]
            for (reason, token) in cases {
                let response = try await box.apple(key, token: token, nonce: "n")
                #expect(response.status == .unauthorized, "\(reason)")
                #expect(response.errorCode == "apple_token_invalid", "\(reason)")
                #expect(response.text.contains(reason), "expected '\(reason)' in \(response.text)")
            }
        }
    }

    @Test func anUnknownKeyIDRefetchesTheKeysOnce() async throws {
        let keys = try await AppleTestKeys.make()
        let server = JWKSServer(json: #"{"keys":[]}"#)
        try await withApple(keys, server: server) { _, key, box in
            let token = try await keys.sign(.init(subject: "s", audience: Self.audience, rawNonce: "n"))
            // Keys not published yet: unknown kid.
            #expect(try await box.apple(key, token: token, nonce: "n").text.contains("unknown key"))
            let fetchesAfterFirst = server.fetchCount
            #expect(fetchesAfterFirst == 1)
            // A burst of unknown kids does not hammer the source (refetch is rate limited).
            for _ in 0..<3 { _ = try await box.apple(key, token: token, nonce: "n") }
            #expect(server.fetchCount == fetchesAfterFirst)
        }
    }

    @Test func aTenantWithoutAppleAudiencesSaysSo() async throws {
        let keys = try await AppleTestKeys.make()
        try await JWKSServer(json: keys.jwksJSON).run { url in
            let hearth = try await TestHearth.make { $0.accounts.appleJWKS = .url(url) }
            let (_, key) = try await hearth.createTenant()
            let token = try await keys.sign(.init(subject: "s", audience: Self.audience, rawNonce: "n"))
            try await hearth.test { client in
                let response = try await ClientBox(client: client).apple(key, token: token, nonce: "n")
                #expect(response.status == .unprocessableContent)
                #expect(response.errorCode == "apple_not_configured")
            }
        }
    }

    @Test func keysCanComeFromAFile() async throws {
        let keys = try await AppleTestKeys.make()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try keys.jwksJSON.write(to: file, atomically: true, encoding: .utf8)
        let hearth = try await TestHearth.make { $0.accounts.appleJWKS = try! .init("file://" + file.path) }
        let (_, key) = try await hearth.createTenant(settings: .init(appleAudiences: [Self.audience]))
        let token = try await keys.sign(.init(subject: "file-user", audience: Self.audience, rawNonce: "n"), with: .es256)
        try await hearth.test { client in
            let response = try await ClientBox(client: client).apple(key, token: token, nonce: "n")
            #expect(response.status == .created)
        }
    }

    /// An `alg: none` token: must never be accepted.
    static func unsigned(_ claims: AppleTestKeys.Claims) -> String {
        let header = Secrets.base64URL(Array(#"{"alg":"none","kid":"rsa-test"}"#.utf8))
        let payload = Secrets.base64URL(Array((try? JSONEncoder().encode(claims)) ?? Data()))
        return "\(header).\(payload)."
    }
}

/// Lets the helper closure take the (existential) test client.
protocol TestClientProtocolBox: Sendable {
    var client: any TestClientProtocol { get }
}

struct ClientBox: TestClientProtocolBox {
    let client: any TestClientProtocol

    func apple(_ clientKey: String, token: String, nonce: String, accessToken: String? = nil) async throws -> APIResponse {
        try await client.call(.post, "/v1/auth/apple", clientKey: clientKey, token: accessToken, json: ["identityToken": token, "nonce": nonce])
    }
}

extension TestClientProtocolBox {
    func apple(_ clientKey: String, token: String, nonce: String, accessToken: String? = nil) async throws -> APIResponse {
        try await ClientBox(client: client).apple(clientKey, token: token, nonce: nonce, accessToken: accessToken)
    }
}
