import Foundation
import HearthPlatform
import HearthTestSupport
import Testing

@Suite struct AnonymousAndEmailTests {
    @Test func anAnonymousAccountIsOneCallAndCanUseTheAPI() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            #expect(grant.user.isAnonymous && grant.isNewUser)
            #expect(grant.expiresIn == 900)
            let me = try await client.call(.get, "/v1/me", clientKey: key, token: grant.accessToken)
            #expect(me.status == .ok)
            #expect(me["id"] as? String == grant.user.id.uuidString)
            #expect(me["isAnonymous"] as? Bool == true)
        }
    }

    @Test func upgradingAnAnonymousAccountToEmailKeepsItsIdAndData() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let anonymous = try await client.anonymous(clientKey: key)
            let upgraded = try await client.signUp(clientKey: key, email: "Maya@Example.com ", token: anonymous.accessToken)
            #expect(upgraded.user.id == anonymous.user.id)
            #expect(!upgraded.isNewUser && !upgraded.user.isAnonymous)
            #expect(upgraded.user.email == "maya@example.com")
            #expect(upgraded.user.signInMethods == ["email"])
            // The anonymous session was replaced, so its tokens no longer work.
            let old = try await client.call(.get, "/v1/me", clientKey: key, token: anonymous.accessToken)
            #expect(old.errorCode == "session_revoked")
            // And the same person can now sign in with the email.
            let login = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "maya@example.com", "password": "correct horse battery"])
            #expect(login.status == .ok)
            #expect(try login.decode(Grant.self).user.id == anonymous.user.id)
            // Upgrading twice is refused.
            let again = try await client.call(.post, "/v1/auth/email/signup", clientKey: key, token: upgraded.accessToken,
                                              json: ["email": "other@example.com", "password": "correct horse battery"])
            #expect(again.status == .conflict)
            #expect(again.errorCode == "already_registered")
        }
        #expect(try await hearth.adminCount("users") == 1)
    }

    @Test func aDuplicateEmailIsAConflictWhateverItsCase() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            _ = try await client.signUp(clientKey: key, email: "sam@example.com")
            let duplicate = try await client.call(.post, "/v1/auth/email/signup", clientKey: key, json: ["email": "SAM@example.com", "password": "another password"])
            #expect(duplicate.status == .conflict)
            #expect(duplicate.errorCode == "email_taken")
        }
        #expect(try await hearth.adminCount("users") == 1)
    }

    @Test func theSameEmailMayExistInTwoTenants() async throws {
        let hearth = try await TestHearth.make()
        let (_, keyA) = try await hearth.createTenant()
        let (_, keyB) = try await hearth.createTenant()
        try await hearth.test { client in
            let a = try await client.signUp(clientKey: keyA, email: "sam@example.com")
            let b = try await client.signUp(clientKey: keyB, email: "sam@example.com")
            #expect(a.user.id != b.user.id)
        }
    }

    @Test func passwordLengthFollowsTheTenantSetting() async throws {
        let hearth = try await TestHearth.make()
        let (_, standard) = try await hearth.createTenant()
        let (_, strict) = try await hearth.createTenant(settings: .init(passwordMinLength: 12))
        try await hearth.test { client in
            let short = try await client.call(.post, "/v1/auth/email/signup", clientKey: standard, json: ["email": "a@example.com", "password": "1234567"])
            #expect(short.status == .unprocessableContent)
            #expect(short.errorCode == "validation_failed")
            _ = try await client.signUp(clientKey: standard, email: "a@example.com", password: "12345678")
            let tooShortHere = try await client.call(.post, "/v1/auth/email/signup", clientKey: strict, json: ["email": "a@example.com", "password": "12345678901"])
            #expect(tooShortHere.status == .unprocessableContent)
            #expect((tooShortHere.json["error"] as? [String: Any])?["message"] as? String == "Passwords need at least 12 characters.")
            let huge = try await client.call(.post, "/v1/auth/email/signup", clientKey: standard,
                                             json: ["email": "b@example.com", "password": String(repeating: "x", count: 2000)])
            #expect(huge.status == .unprocessableContent)
        }
    }

    @Test(arguments: ["", "plain", "a@b", "@example.com", "a@.com", "a b@example.com", "a@example.com."])
    func malformedEmailsAreRejected(_ email: String) async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let response = try await client.call(.post, "/v1/auth/email/signup", clientKey: key, json: ["email": email, "password": "correct horse battery"])
            #expect(response.status == .unprocessableContent)
            #expect(response.errorCode == "validation_failed")
        }
    }

    @Test func theEmailIsEncryptedAtRestAndThePasswordIsAnArgon2idHash() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            _ = try await client.signUp(clientKey: key, email: "private.person@example.com", password: "correct horse battery")
        }
        let stored = try await hearth.withAdminDatabase { database in
            let rows = try await database.client.query(
                "SELECT encode(email_ciphertext, 'escape'), encode(email_index, 'hex'), password_hash FROM email_credentials",
                logger: database.logger
            ).collect()
            return try rows.first!.decode((String, String, String).self)
        }
        #expect(!stored.0.contains("private.person"))
        #expect(!stored.1.isEmpty)
        #expect(stored.2.hasPrefix("$argon2id$"))
        #expect(!stored.2.contains("correct horse"))
    }

    @Test func wrongPasswordAndUnknownEmailLookTheSame() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            _ = try await client.signUp(clientKey: key, email: "sam@example.com")
            let wrong = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "sam@example.com", "password": "not the password"])
            let unknown = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "nobody@example.com", "password": "not the password"])
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong.text == unknown.text)
            #expect(wrong.errorCode == "invalid_credentials")
        }
    }

    @Test func repeatedFailuresLockTheAccountWithRetryAfterAndSuccessResets() async throws {
        let hearth = try await TestHearth.make { $0.accounts.loginThrottle = .init(maxFailuresPerAccount: 3, maxFailuresPerAddress: 100, window: .seconds(600)) }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            _ = try await client.signUp(clientKey: key, email: "sam@example.com")
            _ = try await client.signUp(clientKey: key, email: "kim@example.com")
            let good: [String: any Sendable] = ["email": "sam@example.com", "password": "correct horse battery"]
            let bad: [String: any Sendable] = ["email": "sam@example.com", "password": "guess"]
            // A success gives the account's counter back.
            for _ in 0..<2 { #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: bad).status == .unauthorized) }
            #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: good).status == .ok)
            for _ in 0..<3 { #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: bad).status == .unauthorized) }
            // Now locked: even the right password waits, and the client is told how long.
            let locked = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: good)
            #expect(locked.status == .tooManyRequests)
            #expect(locked.errorCode == "too_many_attempts")
            let retryAfter = Int(locked.headers[.retryAfter] ?? "") ?? 0
            #expect((1...600).contains(retryAfter))
            // Another account from the same address is unaffected.
            #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key,
                                          json: ["email": "kim@example.com", "password": "correct horse battery"]).status == .ok)
        }
    }

    @Test func failureCountersWhoseWindowHasEndedAreDeletedByTheHourlySweep() async throws {
        let hearth = try await TestHearth.make {
            $0.accounts.loginThrottle = .init(maxFailuresPerAccount: 5, maxFailuresPerAddress: 20, window: .seconds(600))
            $0.jobs.workers = 1
        }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let guess: (String) -> [String: any Sendable] = { ["email": $0, "password": "guess"] }
            // One failure counted against an account and the address, both windows then long over.
            #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: guess("old@example.com")).status == .unauthorized)
            try await hearth.admin("UPDATE login_throttle SET window_started_at = now() - interval '11 minutes'")
            // A failure now: a new account counter, and the address's counter starts a new window.
            #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: guess("new@example.com")).status == .unauthorized)
            // The sweep also runs once when the server starts, which on a busy machine may come after the update
            // above; either way, only the ended counters go.
            try await hearth.admin("UPDATE job_schedules SET next_run_at = now() WHERE name = 'accounts.ended-login-windows'")
            #expect(try await hearth.eventually("login_throttle", equals: 2))
            #expect(try await hearth.adminCount("login_throttle WHERE failures = 1 AND window_started_at > now() - interval '10 minutes'") == 2)
        }
    }

    @Test func manyFailuresFromOneAddressAreThrottledAcrossAccounts() async throws {
        let hearth = try await TestHearth.make { $0.accounts.loginThrottle = .init(maxFailuresPerAccount: 100, maxFailuresPerAddress: 4, window: .seconds(600)) }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            for index in 0..<4 {
                let response = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "user\(index)@example.com", "password": "guess"])
                #expect(response.status == .unauthorized)
            }
            let fifth = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "user9@example.com", "password": "guess"])
            #expect(fifth.status == .tooManyRequests)
            #expect(fifth.headers[.retryAfter] != nil)
        }
    }
}
