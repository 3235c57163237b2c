import Foundation
import HearthTestSupport
import HummingbirdTesting
import MockLLM
import Testing

/// FR13: what the user shared is in every turn's prompt, read in the turn's one context round trip.
@Suite struct ContextInPromptTests {
    @Test func theProfileIsInTheSystemPromptOfEveryTurnUntilItIsDeleted() async throws {
        try await withMockLLM(.init(responseTokens: 2)) { controls, port in
            let hearth = try await TestHearth.make()
            let (tenant, key) = try await hearth.createTenant()
            try await hearth.useMock(tenant, port: port)
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
}
