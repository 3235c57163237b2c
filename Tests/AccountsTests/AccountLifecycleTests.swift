import Foundation
import HearthPlatform
import HearthTestSupport
import Logging
import PostgresNIO
import Testing

@Suite struct AccountLifecycleTests {
    @Test func exportReturnsEverythingHeldAboutTheUser() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.signUp(clientKey: key, email: "sam@example.com")
            // Something in every feature that holds personal data: a conversation and the context profile.
            let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: grant.accessToken, json: ["title": "Work"])
            let threadID = try #require(thread["id"] as? String)
            let sent = try await client.call(.post, "/v1/threads/\(threadID)/messages", clientKey: key, token: grant.accessToken,
                                             json: ["content": "I keep avoiding my inbox."])
            #expect(sent.status == .ok)
            _ = try await client.call(.patch, "/v1/me/context", clientKey: key, token: grant.accessToken, json: ["values": ["calm"]])

            let export = try await client.call(.get, "/v1/me/export", clientKey: key, token: grant.accessToken)
            #expect(export.status == .ok)
            #expect(export.headers[.contentDisposition]?.contains("attachment") == true)
            #expect(export["format"] as? String == "hearth.export.v1")
            let account = export["account"] as? [String: Any]
            #expect(account?["email"] as? String == "sam@example.com")
            #expect(account?["id"] as? String == grant.user.id.uuidString)
            #expect((export["sessions"] as? [Any])?.count == 1)
            let threads = try #require(export["threads"] as? [[String: Any]])
            #expect((threads.first?["thread"] as? [String: Any])?["title"] as? String == "Work")
            let messages = try #require(threads.first?["messages"] as? [[String: Any]])
            #expect(messages.map { $0["role"] as? String } == ["user", "assistant"])
            #expect(messages.first?["content"] as? String == "I keep avoiding my inbox.")
            #expect(((export["context"] as? [String: Any])?["profile"] as? [String: Any])?["values"] as? [String] == ["calm"])
        }
    }

    @Test func deletingTheAccountRemovesAllItsRowsAndItsDataKey() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        let ciphertext = try await hearth.test { client in
            let grant = try await client.signUp(clientKey: key, email: "leaving@example.com")
            let keeper = try await client.signUp(clientKey: key, email: "staying@example.com")
            _ = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": "leaving@example.com", "password": "correct horse battery"])
            // Keep a copy of the stored ciphertext, as a backup would.
            let backup = try await hearth.withAdminDatabase { database in
                try await database.client.query("SELECT email_ciphertext FROM email_credentials WHERE user_id = \(grant.user.id)", logger: database.logger)
                    .collect().first!.decode(Data.self)
            }
            let deleted = try await client.call(.delete, "/v1/me", clientKey: key, token: grant.accessToken)
            #expect(deleted.status == .noContent)
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: grant.accessToken).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/email/login", clientKey: key,
                                          json: ["email": "leaving@example.com", "password": "correct horse battery"]).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", clientKey: key, token: keeper.accessToken).status == .ok)
            return (grant.user.id, backup)
        }
        let (userID, backup) = ciphertext
        for table in ["users WHERE id", "user_keys WHERE user_id", "email_credentials WHERE user_id", "auth_sessions WHERE user_id"] {
            #expect(try await hearth.adminCount("\(table) = '\(userID)'") == 0, "\(table) kept rows")
        }
        #expect(try await hearth.adminCount("refresh_tokens") == 1) // the other user's
        #expect(try await hearth.adminCount("users") == 1)
        // Crypto-shredding: with the data key gone, no key in the ring opens the backup copy.
        let keyRing = hearth.keyRing
        #expect(throws: CryptoFailure.cannotDecrypt) {
            try FieldCipher.open(Array(backup), key: keyRing.generateDataKey(), context: "email_credentials.email:\(userID.uuidString.lowercased())")
        }
    }

    @Test func aDeletedUsersCiphertextIsUnreadableWhileTheKeyExistedItWasReadable() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let grant = try await hearth.test { client in try await client.signUp(clientKey: key, email: "shred@example.com") }
        let userID = grant.user.id
        let keyRing = hearth.keyRing
        let (wrapped, ciphertext) = try await hearth.withAdminDatabase { database in
            let key = try await database.client.query("SELECT master_version, wrapped_key FROM user_keys WHERE user_id = \(userID)", logger: database.logger)
                .collect().first!.decode((Int, Data).self)
            let text = try await database.client.query("SELECT email_ciphertext FROM email_credentials WHERE user_id = \(userID)", logger: database.logger)
                .collect().first!.decode(Data.self)
            return (KeyRing.WrappedKey(masterVersion: key.0, sealed: Array(key.1)), text)
        }
        let context = "email_credentials.email:\(userID.uuidString.lowercased())"
        let dataKey = try keyRing.unwrap(wrapped, context: "user:\(userID.uuidString.lowercased())")
        #expect(try FieldCipher.open(Array(ciphertext), key: dataKey, context: context) == "shred@example.com")
        let deletion = try await hearth.test { client in
            try await client.call(.delete, "/v1/me", clientKey: key, token: grant.accessToken)
        }
        #expect(deletion.status == .noContent)
        #expect(try await hearth.adminCount("user_keys WHERE tenant_id = '\(tenant.id)'") == 0)
    }

    @Test func logsCarryIdsButNoPersonalData() async throws {
        let logs = CapturedLogs()
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        let email = "very.private.person@example.com"
        let password = "my secret password 123"
        try await hearth.test(logger: logs.logger) { client in
            let grant = try await client.signUp(clientKey: key, email: email, password: password)
            _ = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": email, "password": "wrong guess here"])
            _ = try await client.call(.post, "/v1/auth/email/login", clientKey: key, json: ["email": email, "password": password])
            _ = try await client.call(.post, "/v1/auth/email/signup", clientKey: key, json: ["email": email, "password": password])
            _ = try await client.call(.get, "/v1/me/export", clientKey: key, token: grant.accessToken)
            _ = try await client.call(.post, "/v1/auth/refresh", clientKey: key, json: ["refreshToken": grant.refreshToken])
        }
        let all = logs.all.joined(separator: "\n")
        #expect(logs.all.count > 5)
        #expect(all.contains("request_id"))
        for secret in [email, "very.private", password, "wrong guess", key] {
            #expect(!all.contains(secret), "the logs contain \(secret)")
        }
    }
}
