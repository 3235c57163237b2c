import Crypto
import Foundation
import HearthPlatform
import JWTKit

/// Verifies a Sign in with Apple identity token the way Apple documents it: signature by a key from Apple's
/// JWKS (chosen by `kid`, RS256 or ES256), `iss` is Apple, `aud` is one of the tenant's bundle or Services
/// ids, `exp` in the future, `iat` not in the future, and `nonce` is the SHA-256 of the nonce the app made.
public struct AppleIdentityVerifier: Sendable {
    public struct Identity: Sendable, Equatable {
        /// Apple's stable user identifier for this team.
        public let subject: String
        public let email: String?
    }

    struct Claims: JWTPayload {
        let iss: IssuerClaim
        let sub: SubjectClaim
        let aud: AudienceClaim
        let exp: ExpirationClaim
        let iat: IssuedAtClaim
        let nonce: String?
        let email: String?

        // Claims are checked by the verifier, which can say precisely what is wrong.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    public static let issuer = "https://appleid.apple.com"
    static let allowedAlgorithms: Set<String> = ["RS256", "ES256"]
    /// Tolerated clock difference between Apple and us.
    static let leeway: TimeInterval = 60

    let jwks: JWKSProvider

    public init(jwks: JWKSProvider) {
        self.jwks = jwks
    }

    public func verify(_ token: String, audiences: [String], nonce: String, now: Date = Date()) async throws -> Identity {
        guard !audiences.isEmpty else {
            throw APIError(.unprocessableContent, code: "apple_not_configured",
                           message: "Sign in with Apple is not configured for this app (no bundle or Services id).")
        }
        let header = try Self.header(of: token)
        guard Self.allowedAlgorithms.contains(header.alg) else { throw Self.invalid("it is not signed with RS256 or ES256") }
        let keys: JWTKeyCollection?
        do {
            keys = try await jwks.keys(containing: header.kid)
        } catch {
            throw APIError(.serviceUnavailable, code: "apple_keys_unavailable",
                           message: "Apple's signing keys could not be fetched. Please try again shortly.")
        }
        guard let keys else { throw Self.invalid("it is signed by an unknown key") }
        let claims: Claims
        do {
            claims = try await keys.verify(token, as: Claims.self)
        } catch {
            throw Self.invalid("its signature does not verify")
        }
        guard claims.iss.value == Self.issuer else { throw Self.invalid("it was not issued by Apple") }
        guard claims.aud.value.contains(where: audiences.contains) else { throw Self.invalid("it was issued for another app") }
        guard claims.exp.value.timeIntervalSince(now) > -Self.leeway else { throw Self.invalid("it has expired") }
        guard claims.iat.value.timeIntervalSince(now) < Self.leeway else { throw Self.invalid("it was issued in the future") }
        let expected = Secrets.hex(Array(SHA256.hash(data: Data(nonce.utf8))))
        guard let claimed = claims.nonce, Secrets.constantTimeEquals(Array(claimed.utf8), Array(expected.utf8)) else {
            throw Self.invalid("its nonce does not match")
        }
        guard !claims.sub.value.isEmpty else { throw Self.invalid("it names no user") }
        return Identity(subject: claims.sub.value, email: claims.email)
    }

    static func invalid(_ reason: String) -> APIError {
        .unauthorized("apple_token_invalid", "The Apple identity token was rejected: \(reason).")
    }

    /// The JOSE header, read before verification to pick the key.
    static func header(of token: String) throws -> (alg: String, kid: String) {
        struct Header: Decodable { let alg: String; let kid: String? }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.count < 8192, parts.count == 3, let data = Secrets.decodeBase64URL(String(parts[0])),
              let header = try? JSONDecoder().decode(Header.self, from: data)
        else { throw invalid("it is not a JWT") }
        guard let kid = header.kid else { throw invalid("it names no key") }
        return (header.alg, kid)
    }
}
