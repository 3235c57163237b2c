import Foundation
@testable import LLM
import Testing

@Suite struct JSONWriterTests {
    static let awkward = [
        "", "plain", #"say "hi""#, #"back\slash"#, "a/b", "line\nbreak\r\n\ttab", "é 😀 中文 \u{2028}\u{2029}",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{7F}\u{80}\u{FFFF}",
    ]

    @Test(arguments: awkward)
    func aStringReadsBackAsItself(_ value: String) throws {
        var json = JSONWriter()
        json.string(value)
        #expect(try JSONSerialization.jsonObject(with: json.data, options: .fragmentsAllowed) as? String == value)
        // Nothing below U+0020 goes out unescaped.
        #expect(!json.bytes.contains { $0 < 0x20 })
    }

    @Test func numbersAndRawTextAreWrittenAsGiven() {
        var json = JSONWriter()
        json.raw(#"{"n":"#)
        json.int(-42)
        json.raw(#","m":"#)
        json.int(Int.max)
        json.raw("}")
        #expect(json.text == #"{"n":-42,"m":9223372036854775807}"#)
    }

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
