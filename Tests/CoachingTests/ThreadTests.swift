import Foundation
import HearthTestSupport
import Testing

@Suite struct ThreadTests {
    @Test func threadsAreCreatedListedReadRenamedAndDeleted() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            let token = grant.accessToken
            let created = try await client.call(.post, "/v1/threads", clientKey: key, token: token, json: ["title": "Career change", "sessionType": "goal_review"])
            #expect(created.status == .created)
            #expect(created["sessionType"] as? String == "goal_review")
            let id = try #require(created["id"] as? String)
            let plain = try await client.call(.post, "/v1/threads", clientKey: key, token: token, json: [:])
            #expect(plain["sessionType"] as? String == "freeform")
            #expect(plain["title"] == nil)

            #expect(try await client.call(.get, "/v1/threads/\(id)", clientKey: key, token: token)["title"] as? String == "Career change")
            let renamed = try await client.call(.patch, "/v1/threads/\(id)", clientKey: key, token: token, json: ["title": "New job"])
            #expect(renamed["title"] as? String == "New job")
            // Renaming made it the most recently updated.
            let list = try await client.call(.get, "/v1/threads", clientKey: key, token: token)
            let ids = (list["threads"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids?.first == id)
            #expect(ids?.count == 2)

            #expect(try await client.call(.delete, "/v1/threads/\(id)", clientKey: key, token: token).status == .noContent)
            #expect(try await client.call(.get, "/v1/threads/\(id)", clientKey: key, token: token).status == .notFound)
            #expect(try await client.call(.delete, "/v1/threads/\(id)", clientKey: key, token: token).status == .notFound)
            let all = try await client.call(.delete, "/v1/threads", clientKey: key, token: token)
            #expect(all["deleted"] as? Int == 1)
            #expect((try await client.call(.get, "/v1/threads", clientKey: key, token: token)["threads"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func threadListsPageWithACursor() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let token = try await client.anonymous(clientKey: key).accessToken
            for index in 0..<5 { _ = try await client.call(.post, "/v1/threads", clientKey: key, token: token, json: ["title": "t\(index)"]) }
            var titles: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.call(.get, "/v1/threads?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), clientKey: key, token: token)
                titles += (page["threads"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
                cursor = page["nextCursor"] as? String
            } while cursor != nil
            #expect(titles == ["t4", "t3", "t2", "t1", "t0"])
        }
    }

    @Test func badThreadInputIsRejected() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let token = try await client.anonymous(clientKey: key).accessToken
            let unknownType = try await client.call(.post, "/v1/threads", clientKey: key, token: token, json: ["sessionType": "therapy"])
            #expect(unknownType.errorCode == "invalid_body")
            #expect(unknownType.errorMessage?.contains("sessionType must be one of freeform, check_in, guided_exercise, crisis_support, goal_review.") == true,
                    "\(unknownType.errorMessage ?? "")")
            #expect(try await client.call(.post, "/v1/threads", clientKey: key, token: token, json: ["title": String(repeating: "x", count: 201)]).errorCode == "validation_failed")
            #expect(try await client.call(.get, "/v1/threads?limit=0", clientKey: key, token: token).errorCode == "validation_failed")
            #expect(try await client.call(.get, "/v1/threads?cursor=zzz", clientKey: key, token: token).errorCode == "validation_failed")
            #expect(try await client.call(.get, "/v1/threads/not-a-uuid", clientKey: key, token: token).status == .notFound)
            #expect(try await client.call(.get, "/v1/threads").status == .unauthorized)
            #expect(try await client.call(.get, "/v1/threads", clientKey: key).errorCode == "authentication_required")
            // A known path with a method it does not take: 405 and the methods it does, before any sign-in.
            let put = try await client.call(.put, "/v1/threads/\(UUID())")
            #expect(put.status == .methodNotAllowed)
            #expect(put.errorCode == "method_not_allowed")
            #expect(put.headers[.allow] == "DELETE, GET, PATCH")
            #expect(try await client.call(.put, "/v1/no-such-thing").status == .notFound)
        }
    }

    @Test func anotherUsersOrTenantsThreadIsNotFound() async throws {
        let hearth = try await TestHearth.make()
        let (_, keyA) = try await hearth.createTenant()
        let (_, keyB) = try await hearth.createTenant()
        try await hearth.test { client in
            let alice = try await Coachee.make(client, key: keyA)
            let mallory = try await client.anonymous(clientKey: keyA)
            let bob = try await client.anonymous(clientKey: keyB)
            for (key, token) in [(keyA, mallory.accessToken), (keyB, bob.accessToken)] {
                #expect(try await client.call(.get, "/v1/threads/\(alice.threadID)", clientKey: key, token: token).status == .notFound)
                #expect(try await client.call(.patch, "/v1/threads/\(alice.threadID)", clientKey: key, token: token, json: ["title": "mine"]).status == .notFound)
                #expect(try await client.call(.get, alice.messagesPath, clientKey: key, token: token).status == .notFound)
                #expect(try await client.call(.post, alice.messagesPath, clientKey: key, token: token, json: ["content": "hi"]).status == .notFound)
                #expect(try await client.call(.delete, "/v1/threads/\(alice.threadID)", clientKey: key, token: token).status == .notFound)
            }
            #expect(try await client.call(.get, "/v1/threads/\(alice.threadID)", clientKey: keyA, token: alice.token).status == .ok)
        }
    }

    @Test func deletingTheAccountDeletesItsThreadsMessagesAndUsage() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            _ = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "hello"])
            #expect(try await client.call(.delete, "/v1/me", clientKey: key, token: coachee.token).status == .noContent)
        }
        for table in ["threads", "messages", "usage_records"] {
            #expect(try await hearth.adminCount(table) == 0, "\(table) kept rows")
        }
    }
}
