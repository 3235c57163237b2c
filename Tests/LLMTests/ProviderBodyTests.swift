import Foundation
@testable import LLM
import Testing

/// The providers' request bodies, written by `JSONWriter`, read back as the JSON each API documents.
@Suite struct ProviderBodyTests {
    static let request = CompletionRequest(
        system: "Be \"kind\".\n## Rules", messages: [.init(role: .user, content: "Hi\tthere \\ 😀"), .init(role: .assistant, content: "Hello")],
        maxOutputTokens: 321)

    @Test func theOpenAIBodyIsTheChatCompletionsRequest() throws {
        let body = try #require(JSONSerialization.jsonObject(with: OpenAICompatibleProvider.body(model: "gpt-x", Self.request)) as? NSDictionary)
        #expect(body == [
            "model": "gpt-x", "max_tokens": 321, "stream": true, "stream_options": ["include_usage": true],
            "messages": [
                ["role": "system", "content": "Be \"kind\".\n## Rules"],
                ["role": "user", "content": "Hi\tthere \\ 😀"],
                ["role": "assistant", "content": "Hello"],
            ],
        ] as NSDictionary)
    }

    @Test func theAnthropicBodyIsTheMessagesRequest() throws {
        let body = try #require(JSONSerialization.jsonObject(with: AnthropicProvider.body(model: "claude-x", Self.request)) as? NSDictionary)
        #expect(body == [
            "model": "claude-x", "system": "Be \"kind\".\n## Rules", "max_tokens": 321, "stream": true,
            "messages": [["role": "user", "content": "Hi\tthere \\ 😀"], ["role": "assistant", "content": "Hello"]],
        ] as NSDictionary)
        let empty = CompletionRequest(system: "s", messages: [], maxOutputTokens: 1)
        #expect(try JSONSerialization.jsonObject(with: AnthropicProvider.body(model: "m", empty)) as? NSDictionary
            == ["model": "m", "system": "s", "messages": [], "max_tokens": 1, "stream": true] as NSDictionary)
    }
}
