import Foundation
import HTTPTypes
import HearthTestSupport
import MockLLM
import Testing

@Suite struct TurnTests {
    @Test func aStreamedTurnWithTheOfflineCoachIsStoredEncryptedWithItsUsage() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let (status, events) = try await coachee.sse.events(.POST, coachee.messagesPath, json: ["content": "I keep putting off my thesis and I feel guilty."])
            #expect(status == 200)
            #expect(events.first?.event == "start")
            #expect(events.last?.event == "done")
            #expect(events.dropFirst().dropLast().allSatisfy { $0.event == "delta" })
            #expect(events.map(\.id) == Array(1...events.count))
            let done = try #require(events.last)
            #expect(done["provider"] as? String == "offline")
            let usage = try #require(done["usage"] as? [String: Any])
            #expect(usage["costMicros"] as? Int == 0)
            #expect(usage["estimated"] as? Bool == true)
            #expect(events.text.contains("you keep putting off your thesis"))

            let history = try await client.call(.get, coachee.messagesPath + "?order=oldest", clientKey: key, token: coachee.token)
            let messages = try #require(history["messages"] as? [[String: Any]])
            #expect(messages.map { $0["role"] as? String } == ["user", "assistant"])
            #expect(messages[0]["id"] as? String == events[0]["userMessageId"] as? String)
            #expect(messages[1]["content"] as? String == events.text)
            #expect(messages[1]["status"] as? String == "complete")
            // Both ids are time-ordered (version 7): each lands at the right edge of the messages' primary key.
            #expect(messages.allSatisfy { ($0["id"] as? String).flatMap(UUID.init(uuidString:)).map { $0.uuid.6 >> 4 == 7 } == true })
        }
        // At rest: ciphertext only.
        #expect(try await hearth.adminCount("messages WHERE position('thesis' IN encode(content_ciphertext, 'escape')) > 0") == 0)
        #expect(try await hearth.adminCount("usage_records WHERE provider = 'offline' AND outcome = 'completed' AND tokens_estimated AND cost_micros = 0 AND input_tokens > 0 AND output_tokens > 0 AND total_ms >= 0 AND ttft_ms IS NOT NULL") == 1)
        // The record's id is time-ordered too (migration 0040): version 7, its first 48 bits the millisecond it was made.
        #expect(try await hearth.adminCount("""
            usage_records WHERE substring(id::text FROM 15 FOR 1) = '7'
              AND abs(('x' || substring(replace(id::text, '-', '') FROM 1 FOR 12))::bit(48)::bigint - extract(epoch FROM created_at) * 1000) < 5000
            """) == 1)
    }

    @Test func withoutEventStreamTheWholeAnswerComesAsJSON() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let response = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "Hello coach"])
            #expect(response.status == .ok)
            let assistant = try #require(response["assistantMessage"] as? [String: Any])
            #expect(assistant["status"] as? String == "complete")
            #expect((assistant["content"] as? String)?.hasSuffix("?") == true)
            #expect(response["userMessageId"] is String)
            #expect(response["usage"] is [String: Any])
        }
    }

    @Test func theProviderIsSentTheConversationSoFarOldestFirst() async throws {
        try await withMockedHearth(.init(responseTokens: 2)) { controls, hearth, key, port in
            controls.recordConversations()
            try await hearth.test { client in
                let coachee = try await Coachee.make(client, key: key)
                for content in ["First thing", "Second thing", "Third thing"] {
                    let response = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": content])
                    #expect(response.status == .ok)
                }
                // Another thread of the same user is not part of this one's prompt.
                let other = try await client.call(.post, "/v1/threads", clientKey: key, token: coachee.token, json: [:])
                let otherID = try #require(other["id"] as? String)
                _ = try await client.call(.post, "/v1/threads/\(otherID)/messages", clientKey: key, token: coachee.token, json: ["content": "Elsewhere"])
            }
            let answer = "token0 token1"
            #expect(controls.conversations == [
                [.init(role: "user", content: "First thing")],
                [.init(role: "user", content: "First thing"), .init(role: "assistant", content: answer), .init(role: "user", content: "Second thing")],
                [.init(role: "user", content: "First thing"), .init(role: "assistant", content: answer), .init(role: "user", content: "Second thing"),
                 .init(role: "assistant", content: answer), .init(role: "user", content: "Third thing")],
                [.init(role: "user", content: "Elsewhere")],
            ])
        }
    }

    @Test func messagesPageNewestOrOldestFirstWithAStableCursor() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            for index in 0..<4 {
                _ = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "message \(index)"])
            }
            func all(_ order: String) async throws -> [String] {
                var ids: [String] = []
                var cursor: String?
                repeat {
                    let page = try await client.call(.get, coachee.messagesPath + "?order=\(order)&limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                                     clientKey: key, token: coachee.token)
                    ids += (page["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    cursor = page["nextCursor"] as? String
                    // A new message arriving between pages must not shift or repeat them.
                    if ids.count == 3, order == "oldest" {
                        _ = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "late"])
                    }
                } while cursor != nil
                return ids
            }
            let newest = try await all("newest")
            #expect(newest.count == 8)
            #expect(Set(newest).count == 8)
            let oldest = try await all("oldest")
            #expect(oldest.count == 10)
            #expect(Array(oldest.prefix(8)) == newest.reversed())
            #expect(try await client.call(.get, coachee.messagesPath + "?order=sideways", clientKey: key, token: coachee.token).errorCode == "validation_failed")
        }
    }

    @Test func badMessagesAreRejectedAndNothingIsStored() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "   "]).errorCode == "validation_failed")
            #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": String(repeating: "a", count: 8001)]).errorCode == "validation_failed")
            #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["text": "hi"]).errorCode == "invalid_body")
            for body in ["{not json", #"{"content": 5}"#, #"{"content": null}"#, #"["hi"]"#, "", #"{"content": "hi"} x"#] {
                #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, rawBody: body).errorCode == "invalid_body", "\(body)")
            }
            #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "hi"],
                                          headers: [.init("Idempotency-Key")!: String(repeating: "k", count: 129)]).errorCode == "invalid_idempotency_key")
            #expect(try await client.call(.post, "/v1/threads/\(UUID())/messages", clientKey: key, token: coachee.token, json: ["content": "hi"]).status == .notFound)
        }
        #expect(try await hearth.adminCount("messages") == 0)
    }

    @Test func aReplayedSendWithTheSameIdempotencyKeyIsNotDuplicatedOrChargedTwice() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            let headers: HTTPFields = [.init("Idempotency-Key")!: "phone-send-42"]
            let first = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "I'm back online"], headers: headers)
            let second = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "I'm back online"], headers: headers)
            #expect(first.status == .ok && second.status == .ok)
            #expect((first["assistantMessage"] as? [String: Any])?["id"] as? String == (second["assistantMessage"] as? [String: Any])?["id"] as? String)
            #expect((second["assistantMessage"] as? [String: Any])?["content"] as? String == (first["assistantMessage"] as? [String: Any])?["content"] as? String)
            // As a stream, the replay tells the same story.
            let (_, events) = try await coachee.sse.events(.POST, coachee.messagesPath, json: ["content": "I'm back online"], headers: [("Idempotency-Key", "phone-send-42")])
            #expect(events.names == ["start", "delta", "done"])
            #expect(events.text == (first["assistantMessage"] as? [String: Any])?["content"] as? String)
            // The same key with other words is not a replay: refused, and nothing stored.
            let reused = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "Something new"],
                                               headers: headers)
            #expect(reused.status == .unprocessableContent)
            #expect(reused.errorCode == "idempotency_key_reused")
            // Concurrent duplicates too.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        _ = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "twice"],
                                                  headers: [.init("Idempotency-Key")!: "burst-1"])
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(try await hearth.adminCount("messages WHERE role = 'user'") == 2)
        #expect(try await hearth.adminCount("messages WHERE role = 'assistant'") == 2)
        #expect(try await hearth.adminCount("usage_records") == 2)
    }
}
