import _CryptoExtras
import Crypto
import Foundation
import HearthPlatform
import JWTKit

/// Our own stand-in for Apple's identity-token keys: an RSA and a P-256 key, published as a JWKS, and a
/// signer that mints identity tokens exactly as Apple shapes them.
public struct AppleTestKeys: Sendable {
    public struct Claims: JWTPayload {
        public var iss = "https://appleid.apple.com"
        public var sub = "001234.testsubject.0001"
        public var aud: AudienceClaim = "com.example.coach"
        public var exp = ExpirationClaim(value: Date().addingTimeInterval(600))
        public var iat = IssuedAtClaim(value: Date())
        public var nonce: String?
        public var email: String?

        public init(subject: String, audience: String, rawNonce: String?) {
            sub = subject
            aud = AudienceClaim(value: [audience])
            nonce = rawNonce.map(AppleTestKeys.hashedNonce)
        }

        public func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    public enum Algorithm: Sendable { case rs256, es256 }

    let keys: JWTKeyCollection
    public let jwksJSON: String

    public static func make() async throws -> AppleTestKeys {
        let rsa = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let ec = ES256PrivateKey()
        let keys = JWTKeyCollection()
        await keys.add(rsa: rsa, digestAlgorithm: .sha256, kid: "rsa-test")
        await keys.add(ecdsa: ec, kid: "ec-test")
        let (modulus, exponent) = try rsa.publicKey.getKeyPrimitives()
        guard let (x, y) = ec.publicKey.parameters else { throw ConfigError("no EC parameters") }
        let jwks: [String: Any] = ["keys": [
            ["kty": "RSA", "kid": "rsa-test", "use": "sig", "alg": "RS256",
             "n": Secrets.base64URL(modulus), "e": Secrets.base64URL(exponent)],
            ["kty": "EC", "kid": "ec-test", "use": "sig", "alg": "ES256", "crv": "P-256", "x": x, "y": y],
        ]]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: jwks), as: UTF8.self)
        return AppleTestKeys(keys: keys, jwksJSON: json)
    }

    public func sign(_ claims: Claims, with algorithm: Algorithm = .rs256) async throws -> String {
        try await keys.sign(claims, kid: algorithm == .rs256 ? "rsa-test" : "ec-test")
    }

    public static func hashedNonce(_ raw: String) -> String {
        SHA256.hash(data: Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
