import Foundation
import HearthTestSupport
import HummingbirdTesting
import Testing

/// The memory management API (the memory document's MemoryManagementViewModel): facts by category, summaries,
/// edits and deletions, forget everything in two steps, export.
@Suite struct MemoryManagementTests {
    static func facts(_ client: any TestClientProtocol, _ me: Coachee, _ query: String = "") async throws -> [[String: Any]] {
        try await client.call(.get, "/v1/me/memory/facts" + query, clientKey: me.key, token: me.token)["facts"] as? [[String: Any]] ?? []
    }

    static func text(_ fact: [String: Any]) -> String? { (fact["content"] as? [String: Any])?["text"] as? String }

    @Test func factsAreListedByCategoryEditedPausedAndDeleted() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            func add(_ category: String, _ text: String) async throws -> String {
                let added = try await client.call(.post, "/v1/me/memory/facts", clientKey: key, token: me.token, json: ["category": category, "text": text])
                #expect(added.status == .created, "\(added.text)")
                #expect(added["origin"] as? String == "user")
                #expect(added["confidence"] as? Double == 1.0)
                return try #require(added["id"] as? String)
            }
            let goal = try await add("goal", "Wants to run a half marathon")
            let strategy = try await add("strategy", "Journaling helps")
            _ = try await add("strategy", "Long walks help")

            #expect(try await Self.facts(client, me).count == 3)
            #expect(try await Self.facts(client, me, "?category=strategy").compactMap(Self.text) == ["Journaling helps", "Long walks help"])

            let edited = try await client.call(.patch, "/v1/me/memory/facts/\(goal)", clientKey: key, token: me.token,
                                               json: ["text": "Wants to run a full marathon"])
            #expect(edited.status == .ok)
            #expect(Self.text(edited.json) == "Wants to run a full marathon")
            let paused = try await client.call(.patch, "/v1/me/memory/facts/\(strategy)", clientKey: key, token: me.token, json: ["active": false])
            #expect(paused["active"] as? Bool == false)
            #expect(try await Self.facts(client, me, "?category=strategy").compactMap(Self.text) == ["Long walks help"])
            #expect(try await Self.facts(client, me, "?category=strategy&include_inactive=true").count == 2)

            #expect(try await client.call(.delete, "/v1/me/memory/facts/\(goal)", clientKey: key, token: me.token).status == .noContent)
            #expect(try await client.call(.delete, "/v1/me/memory/facts/\(goal)", clientKey: key, token: me.token).status == .notFound)
            let cleared = try await client.call(.delete, "/v1/me/memory/facts?category=strategy", clientKey: key, token: me.token)
            #expect(cleared["deleted"] as? Int == 2)
            #expect(try await hearth.adminCount("memory_facts") == 0)

            // Someone else's fact is not found, never changed.
            let mine = try await add("identity", "Is called Priya")
            let stranger = try await client.anonymous(clientKey: key)
            #expect(try await client.call(.patch, "/v1/me/memory/facts/\(mine)", clientKey: key, token: stranger.accessToken, json: ["active": false]).status == .notFound)
            #expect(try await client.call(.delete, "/v1/me/memory/facts/\(mine)", clientKey: key, token: stranger.accessToken).status == .notFound)
            #expect(try await Self.facts(client, me).first?["active"] as? Bool == true)
        }
    }

    @Test(arguments: [
        ("POST", "/v1/me/memory/facts", #"{"category": "hobby", "text": "Chess"}"#, "category must be one of") as (String, String, String?, String?),
        ("POST", "/v1/me/memory/facts", #"{"category": "goal", "text": "   "}"#, "text must be 1 to 300 characters"),
        ("POST", "/v1/me/memory/facts", #"{"category": "goal"}"#, nil),
        ("GET", "/v1/me/memory/facts?category=everything", nil, "category must be one of"),
        ("GET", "/v1/me/memory/facts?include_inactive=yes", nil, "include_inactive must be true or false"),
        ("GET", "/v1/me/memory/summaries?include_archived=1", nil, "include_archived must be true or false"),
        ("POST", "/v1/me/memory/forget/confirm", #"{"nope": 1}"#, nil),
    ])
    func badInputIsA4xxWithAClearMessage(_ method: String, _ path: String, _ body: String?, _ message: String?) async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await client.anonymous(clientKey: key)
            let response = try await client.call(.init(method)!, path, clientKey: key, token: me.accessToken, rawBody: body)
            #expect((400...499).contains(response.status.code), "\(response.status) \(response.text)")
            if let message {
                #expect(((response["error"] as? [String: Any])?["message"] as? String)?.contains(message) == true, "\(response.text)")
            }
        }
    }

    @Test func forgettingEverythingTakesARequestACoolDownAndAConfirmation() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            _ = try await client.call(.post, me.messagesPath, clientKey: key, token: me.token, json: ["content": "Hello"])
            _ = try await client.call(.post, "/v1/me/memory/facts", clientKey: key, token: me.token, json: ["category": "goal", "text": "Sleep by 11"])
            _ = try await client.call(.patch, "/v1/me/context", clientKey: key, token: me.token, json: ["preferredName": "Sam"])

            let requested = try await client.call(.post, "/v1/me/memory/forget", clientKey: key, token: me.token)
            #expect(requested.status == .accepted)
            let token = try #require(requested["token"] as? String)
            let confirm = { (token: String) in
                try await client.call(.post, "/v1/me/memory/forget/confirm", clientKey: key, token: me.token, json: ["token": token])
            }
            let early = try await confirm(token)
            #expect(early.status == .tooManyRequests)
            #expect(early.errorCode == "forget_cooling_down")
            #expect(early.headers[.retryAfter] != nil)
            #expect(try await confirm("wrong-token").status == .notFound)
            #expect(try await hearth.adminCount("memory_facts") == 1, "nothing is forgotten before the confirmation")

            // The cool-down (a minute) passes: moved in the database rather than waited for, so a slow run
            // cannot turn the early confirmation above into a late one.
            try await hearth.admin("UPDATE memory_forget_requests SET confirmable_at = now() - interval '1 second'")
            let done = try await confirm(token)
            #expect(done.status == .ok, "\(done.text)")
            #expect(done["facts"] as? Int == 1)
            #expect(done["threads"] as? Int == 1)
            #expect(try await hearth.adminCount("memory_facts") == 0)
            #expect(try await hearth.adminCount("threads") == 0)
            #expect(try await hearth.adminCount("context_profiles WHERE profile_ciphertext IS NOT NULL") == 1, "the profile is the person's settings: it stays")
            #expect(try await confirm(token).status == .notFound, "a token confirms once")

            // A request can be cancelled.
            let again = try #require(try await client.call(.post, "/v1/me/memory/forget", clientKey: key, token: me.token)["token"] as? String)
            #expect(try await client.call(.delete, "/v1/me/memory/forget", clientKey: key, token: me.token).status == .noContent)
            // Not "cooling down" (429): there is nothing left to confirm.
            #expect(try await confirm(again).status == .notFound)
        }
    }

    @Test func memoryIsExportedAsJSONAlsoInTheAccountExport() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            _ = try await client.call(.post, "/v1/me/memory/facts", clientKey: key, token: me.token, json: ["category": "strategy", "text": "Journaling helps"])
            let export = try await client.call(.get, "/v1/me/memory/export", clientKey: key, token: me.token)
            #expect(export.status == .ok)
            #expect((export["facts"] as? [[String: Any]]).map { $0.compactMap(Self.text) } == ["Journaling helps"])
            #expect(export["summaries"] as? [Any] != nil && export["insights"] as? [Any] != nil)
            let account = try await client.call(.get, "/v1/me/export", clientKey: key, token: me.token)
            let memory = try #require(account["memory"] as? [String: Any])
            #expect(((memory["facts"] as? [[String: Any]])?.first).flatMap(Self.text) == "Journaling helps")
        }
    }
}
