import Foundation
import HearthPlatform
import HearthTestSupport
import HummingbirdTesting
import Testing

/// Operator sign-in for the operator API: argon2id passwords, opaque bearer sessions stored as hashes, lockout,
/// idle and absolute timeouts, sign-out.
@Suite struct OperatorSessionTests {
    @Test func anOperatorSignsInIsKnownByTheTokenAndSignsOut() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.createOperator("Mod@Serenity.example", role: .moderator, tenantID: tenant.id)
        try await hearth.test { client in
            // A wrong password and an unknown email get the same answer.
            let wrong = try await client.call(.post, "/operator/v1/sessions", json: ["email": "mod@serenity.example", "password": "not the password"])
            let unknown = try await client.call(.post, "/operator/v1/sessions", json: ["email": "nobody@serenity.example", "password": "not the password"])
            #expect(wrong.status == .unauthorized && wrong.errorCode == "invalid_credentials")
            #expect(unknown.status == .unauthorized && unknown.text == wrong.text)
            #expect(try await client.call(.post, "/operator/v1/sessions", json: ["email": "", "password": "x"]).status == .unprocessableContent)
            #expect(try await client.call(.post, "/operator/v1/sessions", rawBody: "{\"email\":").status == .badRequest)

            let signedIn = try await client.call(.post, "/operator/v1/sessions", json: ["email": "MOD@serenity.example", "password": "operator-passphrase-1"])
            #expect(signedIn.status == .created)
            let token = try #require(signedIn["token"] as? String)
            #expect(signedIn["idleTimeoutSeconds"] as? Int == 1800)
            #expect((signedIn["operator"] as? [String: Any])?["role"] as? String == "moderator")

            let me = try await client.call(.get, "/operator/v1/me", token: token)
            #expect(me.status == .ok && me["email"] as? String == "mod@serenity.example" && me["tenantID"] as? String == tenant.id.uuidString)
            #expect(try await client.call(.get, "/operator/v1/me").errorCode == "authentication_required")
            #expect(try await client.call(.get, "/operator/v1/me", token: "hos_forged").errorCode == "operator_session_invalid")
            // An operator token is no app access token either.
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: token).status == .unauthorized)

            // Only the token's hash is stored.
            #expect(try await hearth.adminCount("operator_sessions WHERE token_hash = sha256(convert_to('\(token)', 'UTF8'))") == 1)
            #expect(try await hearth.adminCount("operator_sessions WHERE encode(token_hash, 'escape') LIKE '%hos_%'") == 0)

            #expect(try await client.call(.delete, "/operator/v1/sessions/current", token: token).status == .noContent)
            #expect(try await client.call(.get, "/operator/v1/me", token: token).errorCode == "operator_session_invalid")
        }
    }

    @Test func sessionsEndWhenIdleWhenOldAndWhenTheOperatorIsDisabled() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.createOperator("ops@hearth.example", role: .platformAdmin, tenantID: nil)
        try await hearth.test { client in
            let idle = try await client.operatorToken("ops@hearth.example")
            let old = try await client.operatorToken("ops@hearth.example")
            let kept = try await client.operatorToken("ops@hearth.example")
            try await hearth.admin("UPDATE operator_sessions SET last_seen_at = now() - interval '31 minutes' WHERE token_hash = sha256(convert_to('\(idle)', 'UTF8'))")
            try await hearth.admin("UPDATE operator_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = sha256(convert_to('\(old)', 'UTF8'))")
            #expect(try await client.call(.get, "/operator/v1/me", token: idle).errorCode == "operator_session_invalid")
            #expect(try await client.call(.get, "/operator/v1/me", token: old).errorCode == "operator_session_invalid")
            // Use restarts the idle clock.
            try await hearth.admin("UPDATE operator_sessions SET last_seen_at = now() - interval '29 minutes' WHERE token_hash = sha256(convert_to('\(kept)', 'UTF8'))")
            #expect(try await client.call(.get, "/operator/v1/me", token: kept).status == .ok)
            #expect(try await hearth.adminCount(
                "operator_sessions WHERE token_hash = sha256(convert_to('\(kept)', 'UTF8')) AND last_seen_at > now() - interval '1 minute'"
            ) == 1)

            try await hearth.admin("UPDATE operators SET disabled_at = now()")
            #expect(try await client.call(.get, "/operator/v1/me", token: kept).errorCode == "operator_session_invalid")
            let disabled = try await client.call(.post, "/operator/v1/sessions", json: ["email": "ops@hearth.example", "password": "operator-passphrase-1"])
            #expect(disabled.errorCode == "invalid_credentials")
        }
    }

    @Test func repeatedFailuresLockTheAccountEvenAgainstParallelGuesses() async throws {
        let hearth = try await TestHearth.make { $0.operatorSessions.maxFailures = 3 }
        try await hearth.createOperator("ops@hearth.example", role: .platformAdmin, tenantID: nil)
        try await hearth.test { client in
            let wrong: [String: any Sendable] = ["email": "ops@hearth.example", "password": "guess guess guess"]
            let right: [String: any Sendable] = ["email": "ops@hearth.example", "password": "operator-passphrase-1"]
            // A success forgets the failures before it.
            for _ in 0..<2 { #expect(try await client.call(.post, "/operator/v1/sessions", json: wrong).errorCode == "invalid_credentials") }
            #expect(try await client.call(.post, "/operator/v1/sessions", json: right).status == .created)

            // Ten guesses at once: three are checked, the rest find the account locked.
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<10 { group.addTask { try await client.call(.post, "/operator/v1/sessions", json: wrong).errorCode } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(codes.filter { $0 == "invalid_credentials" }.count == 3)
            #expect(codes.filter { $0 == "operator_locked" }.count == 7)
            // Locked means locked, even for the right password, with a Retry-After.
            let locked = try await client.call(.post, "/operator/v1/sessions", json: right)
            #expect(locked.status == .tooManyRequests && locked.errorCode == "operator_locked")
            #expect(Int(locked.headers[.retryAfter] ?? "") ?? 0 > 14 * 60)

            // When the lock runs out, the right password works again.
            try await hearth.admin("UPDATE operators SET locked_until = now() - interval '1 second'")
            #expect(try await client.call(.post, "/operator/v1/sessions", json: right).status == .created)
        }
    }
}
