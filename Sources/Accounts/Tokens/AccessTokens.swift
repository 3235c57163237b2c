import Foundation
import HearthPlatform
import JWTKit

/// Short-lived access tokens: HS256 JWTs whose signing key is derived from the master key (`kid` names its
/// version), so rotating the master key rotates them too and no extra secret has to be managed.
///
/// A token only says who it was issued to; the authenticator still checks that its session is live, so
/// logout and reuse detection take effect at once, not when the token expires.
public struct AccessTokens: Sendable {
    struct Claims: JWTPayload {
        let sub: SubjectClaim
        let tid: String
        let sid: String
        let iat: IssuedAtClaim
        let exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    public struct Verified: Sendable, Equatable {
        public let userID: UUID
        public let sessionID: UUID
        public let tenantID: UUID
    }

    public let lifetime: Duration
    let keys: JWTKeyCollection
    let currentKid: JWKIdentifier

    public init(keyRing: KeyRing, lifetime: Duration) async {
        let keys = JWTKeyCollection()
        for version in keyRing.versions {
            if let key = keyRing.tokenSigningKey(version: version) {
                await keys.add(hmac: HMACKey(key: key), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "m\(version)"))
            }
        }
        self.keys = keys
        self.currentKid = JWKIdentifier(string: "m\(keyRing.current.version)")
        self.lifetime = lifetime
    }

    public func issue(userID: UUID, sessionID: UUID, tenantID: UUID, now: Date = Date()) async throws -> String {
        let claims = Claims(
            sub: .init(value: userID.uuidString.lowercased()),
            tid: tenantID.uuidString.lowercased(),
            sid: sessionID.uuidString.lowercased(),
            iat: .init(value: now),
            exp: .init(value: now.addingTimeInterval(TimeInterval(lifetime.components.seconds)))
        )
        return try await keys.sign(claims, kid: currentKid)
    }

    /// `nil` for anything that is not a valid, unexpired token of ours.
    public func verify(_ token: String) async -> Verified? {
        guard token.count < 2048, let claims = try? await keys.verify(token, as: Claims.self),
              let userID = UUID(uuidString: claims.sub.value),
              let sessionID = UUID(uuidString: claims.sid),
              let tenantID = UUID(uuidString: claims.tid)
        else { return nil }
        return Verified(userID: userID, sessionID: sessionID, tenantID: tenantID)
    }
}
