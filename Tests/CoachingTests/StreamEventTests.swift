@testable import Coaching
import Foundation
import HearthPlatform
import LLM
import Testing

/// The `start` and `done` events are written by hand (``WrittenEvent``): they must be the JSON the API documents,
/// with every field and any text escaped.
@Suite struct StreamEventTests {
    @Test func startCarriesTheThreeIds() throws {
        let (thread, question, answer) = (UUID(), UUID(), UUID())
        let object = try Self.object(StartEvent(threadId: thread, userMessageId: question, assistantMessageId: answer))
        #expect(object == ["threadId": thread.uuidString, "userMessageId": question.uuidString, "assistantMessageId": answer.uuidString] as NSDictionary)
    }

    @Test func doneCarriesTheAnswerItsProviderAndUsage() throws {
        let answer = UUID()
        let usage = Usage(inputTokens: 1_234, outputTokens: 56, estimated: true, costMicros: 9_876_543_210)
        let event = DoneEvent(assistantMessageId: answer, status: .interrupted, provider: "openai", model: "team/\"quoted\" model\n", usage: usage)
        let object = try Self.object(event)
        #expect(object == [
            "assistantMessageId": answer.uuidString, "status": "interrupted", "provider": "openai", "model": "team/\"quoted\" model\n",
            "usage": ["inputTokens": 1_234, "outputTokens": 56, "estimated": true, "costMicros": 9_876_543_210],
        ] as NSDictionary)
    }

    @Test func deltaCarriesTheTextEscaped() throws {
        #expect(try Self.object(DeltaEvent(text: "She said \"no\".\n\tThen\u{1} \u{1F600}")) == ["text": "She said \"no\".\n\tThen\u{1} \u{1F600}"] as NSDictionary)
    }

    /// Keys come sorted, as `JSONEncoder` writes the other events.
    @Test func keysAreSorted() {
        var json = JSONWriter()
        StartEvent(threadId: UUID(), userMessageId: UUID(), assistantMessageId: UUID()).write(to: &json)
        let keys = json.text.split(separator: "\"").enumerated().filter { $0.offset % 4 == 1 }.map { String($0.element) }
        #expect(keys == ["assistantMessageId", "threadId", "userMessageId"])
    }

    static func object(_ event: some WrittenEvent) throws -> NSDictionary {
        var json = JSONWriter()
        event.write(to: &json)
        return try #require(try JSONSerialization.jsonObject(with: json.data) as? NSDictionary)
    }
}
