import Foundation
import HearthPlatform

/// OpenAI's chat completions API, streamed — which OpenAI, DeepSeek, Ollama, vLLM and many gateways speak.
public struct OpenAICompatibleProvider: LLMProvider {
    public let kind = "openai"
    public let model: String
    let endpoint: ProviderEndpoint

    /// - Parameter baseURL: up to and including the version, e.g. `https://api.openai.com/v1`.
    public init(model: String, baseURL: String, apiKey: String?, transport: ProviderTransport, firstEventTimeout: Duration, idleTimeout: Duration) {
        self.model = model
        self.endpoint = ProviderEndpoint(baseURL: baseURL, apiKey: apiKey, transport: transport, firstEventTimeout: firstEventTimeout, idleTimeout: idleTimeout)
    }

    /// `{"model":…,"messages":[{"role":"system","content":…},…],"max_tokens":…,"stream":true,"stream_options":{"include_usage":true}}`
    static func body(model: String, _ request: CompletionRequest) -> Data {
        var json = JSONWriter(roomFor: request)
        json.raw(#"{"model":"#)
        json.string(model)
        json.raw(#","messages":["#)
        json.message(role: "system", content: request.system)
        for message in request.messages {
            json.raw(",")
            json.message(role: message.role.rawValue, content: message.content)
        }
        json.raw(#"],"max_tokens":"#)
        json.int(request.maxOutputTokens)
        json.raw(#","stream":true,"stream_options":{"include_usage":true}}"#)
        return json.data
    }

    /// What a streamed chunk is read for: `{"choices":[{"delta":{"content":…}}]}`, the final
    /// `{"usage":{"prompt_tokens":…,"completion_tokens":…}}`, or `{"error":{"message":…}}`.
    static let chunkPaths: [[JSONFields.Step]] = [
        [.key("choices"), .index(0), .key("delta"), .key("content")],
        [.key("usage"), .key("prompt_tokens")],
        [.key("usage"), .key("completion_tokens")],
        [.key("error")],
        [.key("error"), .key("message")],
    ]

    static func events(ofChunk data: String) throws -> [CompletionEvent] {
        let fields = try JSONFields.read(data, chunkPaths)
        if let error = fields[3], error != .null { throw ProviderError(.unavailable, fields[4]?.string ?? "error in stream") }
        var events: [CompletionEvent] = []
        if let text = fields[0]?.string, !text.isEmpty { events.append(.delta(text)) }
        if let input = fields[1]?.int, let output = fields[2]?.int { events.append(.usage(inputTokens: input, outputTokens: output)) }
        return events
    }

    public func stream(_ request: CompletionRequest) -> AsyncThrowingStream<CompletionEvent, any Error> {
        let body = Self.body(model: model, request)
        let headers = endpoint.apiKey.map { [("Authorization", "Bearer \($0)")] } ?? []
        return endpoint.stream(path: "/chat/completions", headers: headers, body: body, firstEventBy: request.firstEventDeadline) { event in
            event.data == "[DONE]" ? nil : try Self.events(ofChunk: event.data)
        }
    }
}
