import AsyncHTTPClient
import Foundation

/// OpenAI's chat completions API, streamed — which OpenAI, DeepSeek, Ollama, vLLM and many gateways speak.
public struct OpenAICompatibleProvider: LLMProvider {
    public let kind = "openai"
    public let model: String
    let endpoint: ProviderEndpoint

    /// - Parameter baseURL: up to and including the version, e.g. `https://api.openai.com/v1`.
    public init(model: String, baseURL: String, apiKey: String?, client: HTTPClient, firstEventTimeout: Duration, idleTimeout: Duration) {
        self.model = model
        self.endpoint = ProviderEndpoint(baseURL: baseURL, apiKey: apiKey, client: client, firstEventTimeout: firstEventTimeout, idleTimeout: idleTimeout)
    }

    struct Body: Encodable {
        struct Message: Encodable { let role: String; let content: String }
        struct StreamOptions: Encodable { let include_usage = true }
        let model: String
        let messages: [Message]
        let max_tokens: Int
        let stream = true
        let stream_options = StreamOptions()
    }

    struct Chunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable { let content: String? }
            let delta: Delta?
        }
        struct Usage: Decodable { let prompt_tokens: Int; let completion_tokens: Int }
        struct Failure: Decodable { let message: String? }
        let choices: [Choice]?
        let usage: Usage?
        let error: Failure?
    }

    public func stream(_ request: CompletionRequest) -> AsyncThrowingStream<CompletionEvent, any Error> {
        let messages = [Body.Message(role: "system", content: request.system)]
            + request.messages.map { Body.Message(role: $0.role.rawValue, content: $0.content) }
        let body = (try? JSONEncoder().encode(Body(model: model, messages: messages, max_tokens: request.maxOutputTokens))) ?? Data()
        let headers = endpoint.apiKey.map { [("Authorization", "Bearer \($0)")] } ?? []
        return endpoint.http.stream(url: endpoint.baseURL + "/chat/completions", headers: headers, body: body) { event in
            if event.data == "[DONE]" { return nil }
            let chunk = try JSONDecoder().decode(Chunk.self, from: Data(event.data.utf8))
            if let error = chunk.error { throw ProviderError(.unavailable, error.message ?? "error in stream") }
            var events: [CompletionEvent] = []
            if let text = chunk.choices?.first?.delta?.content, !text.isEmpty { events.append(.delta(text)) }
            if let usage = chunk.usage { events.append(.usage(inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens)) }
            return events
        }
    }
}
