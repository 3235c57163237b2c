import Foundation
import HearthTestSupport
import HummingbirdTesting
import MockLLM
import Testing

/// FR13: what the user shared is in every turn's prompt, read in the turn's one context round trip.
@Suite struct ContextInPromptTests {
    @Test func theProfileIsInTheSystemPromptOfEveryTurnUntilItIsDeleted() async throws {
        try await withMockedHearth(.init(responseTokens: 2)) { controls, hearth, key, port in
            controls.recordConversations()
            try await hearth.test { client in
                let user = try await client.anonymous(clientKey: key)
                let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: user.accessToken, json: ["sessionType": "goal_review"])
                let path = "/v1/threads/\(try #require(thread["id"] as? String))/messages"
                func send(_ content: String) async throws {
                    #expect(try await client.call(.post, path, clientKey: key, token: user.accessToken, json: ["content": content]).status == .ok)
                }
                try await send("Before I told you anything")
                _ = try await client.call(.patch, "/v1/me/context", clientKey: key, token: user.accessToken, json: [
                    "preferredName": "Priya", "goals": ["speak up in design reviews"], "currentStressors": ["new manager"],
                ])
                try await send("My review is tomorrow")
                _ = try await client.call(.delete, "/v1/me/context", clientKey: key, token: user.accessToken)
                try await send("And now?")
            }
            let prompts = controls.systemPrompts
            #expect(prompts.count == 3)
            #expect(prompts.allSatisfy { $0.hasPrefix("You are a warm, thoughtful coach.") && $0.contains("Review progress on their goals") })
            #expect(!prompts[0].contains("Priya"))
            #expect(prompts[1].contains("- Name: Priya\n- Goals: speak up in design reviews"))
            #expect(prompts[1].contains("## How they are doing lately\n- Current stressors: new manager"))
            #expect(!prompts[2].contains("Priya"))
        }
    }

    @Test func thePromptPreviewShowsWhatATurnWouldSendOnlyWhereTheTenantAllowsIt() async throws {
        let hearth = try await TestHearth.make()
        let (_, closed) = try await hearth.createTenant()
        let (_, open) = try await hearth.createTenant(settings: .init(promptDebug: true))
        try await hearth.test { client in
            for key in [closed, open] {
                let user = try await client.anonymous(clientKey: key)
                let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: user.accessToken, json: [:])
                let threadPath = "/v1/threads/\(try #require(thread["id"] as? String))"
                let preview = { try await client.call(.post, threadPath + "/prompt-preview", clientKey: key, token: user.accessToken, json: ["content": "What next?"]) }
                guard key == open else {
                    #expect(try await preview().status == .forbidden)
                    #expect(try await preview().errorCode == "prompt_debug_disabled")
                    continue
                }
                _ = try await client.call(.patch, "/v1/me/context", clientKey: key, token: user.accessToken, json: ["name": "Derek", "values": ["family"]])
                _ = try await client.call(.post, threadPath + "/messages", clientKey: key, token: user.accessToken, json: ["content": "Hello"])
                let shown = try await preview()
                #expect(shown.status == .ok)
                #expect((shown["system"] as? String)?.contains("- Name: Derek\n- Values: family") == true)
                let messages = try #require(shown["messages"] as? [[String: Any]])
                #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user"])
                #expect(messages.last?["content"] as? String == "What next?")
                #expect((shown["sections"] as? [[String: Any]])?.first?["items"] as? [String] == ["Name: Derek", "Values: family"])
                #expect((shown["estimatedInputTokens"] as? Int ?? 0) > 50)
                // Nothing was stored or sent.
                #expect(try await hearth.adminCount("messages") == 2)
                #expect(try await client.call(.post, "/v1/threads/\(UUID())/prompt-preview", clientKey: key, token: user.accessToken,
                                              json: ["content": "x"]).status == .notFound)
            }
        }
    }
}
