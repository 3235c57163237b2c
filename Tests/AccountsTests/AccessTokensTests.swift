@testable import Accounts
import Foundation
import HearthPlatform
import JWTKit
import Testing

/// The access token's own HS256 reader and writer, held to JWTKit (which issued them before) in both directions.
@Suite struct AccessTokensTests {
    let ring: KeyRing
    let tokens: AccessTokens
    let user = UUID(), session = UUID(), tenant = UUID()

    init() throws {
        ring = try KeyRing(parsing: KeyRing.generateSpecification(version: 1))
        tokens = AccessTokens(keyRing: ring, lifetime: .seconds(900))
    }

    /// The claims as JWTKit's version of `AccessTokens` wrote them: dates as fractional seconds.
    struct LegacyClaims: JWTPayload {
        let sub: SubjectClaim
        let tid: String
        let sid: String
        let iat: IssuedAtClaim
        let exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    func jwtKit(_ ring: KeyRing) async -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        for version in ring.versions {
            await keys.add(hmac: HMACKey(key: ring.tokenSigningKey(version: version)!), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "m\(version)"))
        }
        return keys
    }

    @Test func aTokenNamesWhoItWasIssuedTo() {
        let token = tokens.issue(userID: user, sessionID: session, tenantID: tenant)
        #expect(tokens.verify(token) == .init(userID: user, sessionID: session, tenantID: tenant))
    }

    @Test func jwtKitReadsOurTokensAndWeReadItsOnes() async throws {
        let keys = await jwtKit(ring)
        let ours = tokens.issue(userID: user, sessionID: session, tenantID: tenant)
        let read = try await keys.verify(ours, as: LegacyClaims.self)
        #expect(read.sub.value == user.uuidString.lowercased() && read.sid == session.uuidString.lowercased() && read.tid == tenant.uuidString.lowercased())
        #expect(abs(read.exp.value.timeIntervalSinceNow - 900) < 5)

        let now = Date()
        let theirs = try await keys.sign(LegacyClaims(
            sub: .init(value: user.uuidString.lowercased()), tid: tenant.uuidString.lowercased(), sid: session.uuidString.lowercased(),
            iat: .init(value: now), exp: .init(value: now.addingTimeInterval(900))), kid: JWKIdentifier(string: "m1"))
        #expect(tokens.verify(theirs) == .init(userID: user, sessionID: session, tenantID: tenant))
        #expect(tokens.verify(theirs, now: now.addingTimeInterval(901)) == nil)
    }

    @Test func expiredTokensAreRefused() {
        let token = tokens.issue(userID: user, sessionID: session, tenantID: tenant, now: Date().addingTimeInterval(-901))
        #expect(tokens.verify(token) == nil)
        #expect(tokens.verify(token, now: Date().addingTimeInterval(-10)) != nil)
    }

    @Test func aTokenSignedWithARetiredKeyVersionIsRefused() throws {
        let v2 = KeyRing.generateSpecification(version: 2)
        let rotated = try KeyRing(parsing: "\(v2),\(ring.specification)")
        let old = tokens.issue(userID: user, sessionID: session, tenantID: tenant)
        // Readable while version 1 is in the ring, and new tokens use version 2…
        #expect(AccessTokens(keyRing: rotated, lifetime: .seconds(900)).verify(old) != nil)
        let new = AccessTokens(keyRing: rotated, lifetime: .seconds(900)).issue(userID: user, sessionID: session, tenantID: tenant)
        #expect(tokens.verify(new) == nil)
        // …and refused once version 1 is retired.
        #expect(AccessTokens(keyRing: try KeyRing(parsing: v2), lifetime: .seconds(900)).verify(old) == nil)
    }

    @Test func anythingButOurExactTokenIsRefused() throws {
        let token = tokens.issue(userID: user, sessionID: session, tenantID: tenant)
        let parts = token.split(separator: ".").map(String.init)
        let payload = try #require(Secrets.decodeBase64URL(parts[1]))
        func encoded(_ text: String) -> String { Secrets.base64URL(Array(text.utf8)) }
        let forged = [
            // Another algorithm, or none, over the same claims.
            encoded(#"{"alg":"none","kid":"m1","typ":"JWT"}"#) + "." + parts[1] + ".",
            encoded(#"{"alg":"none","kid":"m1","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2],
            encoded(#"{"alg":"HS512","kid":"m1","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2],
            // Another header under the same signature, or one naming a key we do not have.
            encoded(#"{"typ":"JWT","alg":"HS256","kid":"m1"}"#) + "." + parts[1] + "." + parts[2],
            encoded(#"{"alg":"HS256","kid":"m9","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2],
            encoded(#"{"alg":"HS256","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2],
            // Claims changed under the old signature.
            parts[0] + "." + encoded(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "\"exp\":", with: "\"exp\":9")) + "." + parts[2],
            // The signature's last character changed, or padded: the same bytes are not enough, only our encoding.
            parts[0] + "." + parts[1] + "." + parts[2].dropLast() + (parts[2].hasSuffix("A") ? "B" : "A"),
            parts[0] + "." + parts[1] + "." + parts[2] + "=",
            token + ".", token + ".x", parts[0] + "." + parts[1], "", "..", "x.y.z",
            String(repeating: "a", count: 2048),
        ]
        for candidate in forged {
            #expect(tokens.verify(candidate) == nil, "\(candidate)")
        }
    }

    @Test func aSignedTokenWithoutExpiryOrIdsIsRefused() {
        let key = ring.tokenSigningKey(version: 1)!
        for claims in [#"{"sub":"\#(user)","sid":"\#(session)","tid":"\#(tenant)"}"#,
                       #"{"exp":9999999999,"sub":"\#(user)","sid":"\#(session)"}"#,
                       #"{"exp":"9999999999","sub":"\#(user)","sid":"\#(session)","tid":"\#(tenant)"}"#,
                       #"{"exp":9999999999,"sub":"someone","sid":"\#(session)","tid":"\#(tenant)"}"#,
                       #"{"exp":9999999999,"sub":"\#(user)","sid":"\#(session)","tid":"\#(tenant)""#] {
            let signed = AccessTokens.header(kid: "m1") + "." + Secrets.base64URL(Array(claims.utf8))
            #expect(tokens.verify(signed + "." + AccessTokens.signature(of: signed, key: key)) == nil, "\(claims)")
        }
        let whole = #"{"exp":9999999999,"sub":"\#(user)","sid":"\#(session)","tid":"\#(tenant)"}"#
        let signed = AccessTokens.header(kid: "m1") + "." + Secrets.base64URL(Array(whole.utf8))
        #expect(tokens.verify(signed + "." + AccessTokens.signature(of: signed, key: key)) != nil)
    }

    /// The header is read, not matched byte for byte (JWTKit wrote its keys in any order), but it must say HS256.
    @Test func theHeaderMustSayHS256WithAKeyWeHave() {
        let key = ring.tokenSigningKey(version: 1)!
        let claims = Secrets.base64URL(Array(#"{"exp":9999999999,"sub":"\#(user)","sid":"\#(session)","tid":"\#(tenant)"}"#.utf8))
        func signed(_ header: String) -> String {
            let signed = Secrets.base64URL(Array(header.utf8)) + "." + claims
            return signed + "." + AccessTokens.signature(of: signed, key: key)
        }
        #expect(tokens.verify(signed(#"{"typ":"JWT","kid":"m1","alg":"HS256"}"#)) != nil)
        #expect(tokens.verify(signed(#"{"kid":"m1","alg":"HS256"}"#)) != nil)
        for header in [#"{"alg":"none","kid":"m1"}"#, #"{"alg":"RS256","kid":"m1"}"#, #"{"alg":"hs256","kid":"m1"}"#,
                       #"{"kid":"m1"}"#, #"{"alg":"HS256"}"#, #"{"alg":"HS256","kid":"m2"}"#, #"{"alg":"HS256","kid":1}"#, "not json"] {
            #expect(tokens.verify(signed(header)) == nil, "\(header)")
        }
    }
}
