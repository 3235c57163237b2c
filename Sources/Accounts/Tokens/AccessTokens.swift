import Crypto
import Foundation
import HearthPlatform

/// Short-lived access tokens: HS256 JWTs (RFC 7519) whose signing key is derived from the master key (`kid`
/// names its version), so rotating the master key rotates them too and no extra secret has to be managed.
///
/// A token only says who it was issued to; the authenticator still checks that its session is live, so
/// logout and reuse detection take effect at once, not when the token expires.
///
/// Written and read here rather than by JWTKit: every request verifies one, and JWTKit's two `JSONDecoder`
/// passes and its actor hop were 3% of a chat turn's CPU. Only our own tokens have to be read, so the check is
/// strict where a general library must be lenient: the header must say HS256 and name a key version we have (so
/// `none` or RS256 cannot get in, and the signature is always an HMAC with our key), the signature is compared as
/// its canonical encoding in constant time, and `exp` is required. Tokens JWTKit issued read the same
/// (`AccessTokensTests`).
public struct AccessTokens: Sendable {
    public struct Verified: Sendable, Equatable {
        public let userID: UUID
        public let sessionID: UUID
        public let tenantID: UUID
    }

    public let lifetime: Duration
    /// Signing keys by `kid` (`m1`, `m2`…), one per master key version.
    let keys: [String: SymmetricKey]
    let currentKid: String
    /// `{"alg":"HS256","kid":"m2","typ":"JWT"}` for the current version, encoded.
    let currentHeader: String

    public init(keyRing: KeyRing, lifetime: Duration) {
        var keys: [String: SymmetricKey] = [:]
        for version in keyRing.versions {
            if let key = keyRing.tokenSigningKey(version: version) { keys["m\(version)"] = key }
        }
        self.keys = keys
        self.currentKid = "m\(keyRing.current.version)"
        self.currentHeader = Self.header(kid: currentKid)
        self.lifetime = lifetime
    }

    static func header(kid: String) -> String {
        Secrets.base64URL(#"{"alg":"HS256","kid":"\#(kid)","typ":"JWT"}"#.utf8)
    }

    public func issue(userID: UUID, sessionID: UUID, tenantID: UUID, now: Date = Date()) -> String {
        let issued = Int(now.timeIntervalSince1970)
        var claims = JSONWriter(capacity: 192)
        claims.raw(#"{"exp":"#)
        claims.int(issued + Int(lifetime.components.seconds))
        claims.raw(#","iat":"#)
        claims.int(issued)
        claims.raw(#","sid":"#)
        claims.string(sessionID.uuidString.lowercased())
        claims.raw(#","sub":"#)
        claims.string(userID.uuidString.lowercased())
        claims.raw(#","tid":"#)
        claims.string(tenantID.uuidString.lowercased())
        claims.raw("}")
        let signed = currentHeader + "." + Secrets.base64URL(claims.bytes)
        return signed + "." + Self.signature(of: signed, key: keys[currentKid]!)
    }

    /// `nil` for anything that is not a valid, unexpired token of ours.
    public func verify(_ token: String, now: Date = Date()) -> Verified? {
        guard token.utf8.count < 2048 else { return nil }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Secrets.decodeBase64URL(bytes: parts[0]),
              let fields = try? JSONFields.read(String(decoding: header, as: UTF8.self), Self.headerPaths),
              fields[0]?.string == "HS256", let key = fields[1]?.string.flatMap({ keys[$0] })
        else { return nil }
        let signed = Substring(token.utf8[parts[0].startIndex..<parts[1].endIndex])
        guard Secrets.constantTimeEquals(Array(Self.signature(of: signed, key: key).utf8), Array(parts[2])),
              let payload = Secrets.decodeBase64URL(bytes: parts[1]),
              let claims = try? JSONFields.read(String(decoding: payload, as: UTF8.self), Self.claimPaths),
              let expires = claims[0]?.number, now.timeIntervalSince1970 < expires,
              let userID = claims[1]?.string.flatMap(UUID.init(uuidString:)),
              let sessionID = claims[2]?.string.flatMap(UUID.init(uuidString:)),
              let tenantID = claims[3]?.string.flatMap(UUID.init(uuidString:))
        else { return nil }
        return Verified(userID: userID, sessionID: sessionID, tenantID: tenantID)
    }

    static let headerPaths: [[JSONFields.Step]] = [[.key("alg")], [.key("kid")]]
    static let claimPaths: [[JSONFields.Step]] = [[.key("exp")], [.key("sub")], [.key("sid")], [.key("tid")]]

    static func signature(of signed: some StringProtocol, key: SymmetricKey) -> String {
        Secrets.base64URL(HMAC<SHA256>.authenticationCode(for: Array(signed.utf8), using: key))
    }
}
