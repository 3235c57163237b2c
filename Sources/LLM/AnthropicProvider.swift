import AsyncHTTPClient
import Foundation

/// Anthropic's Messages API, streamed.
public struct AnthropicProvider: LLMProvider {
    public let kind = "anthropic"
    public let model: String
    let endpoint: ProviderEndpoint

    static let apiVersion = "2023-06-01"

    /// - Parameter baseURL: e.g. `https://api.anthropic.com` (the path `/v1/messages` is added).
    public init(model: String, baseURL: String, apiKey: String?, client: HTTPClient, firstEventTimeout: Duration, idleTimeout: Duration) {
        self.model = model
        self.endpoint = ProviderEndpoint(baseURL: baseURL, apiKey: apiKey, client: client, firstEventTimeout: firstEventTimeout, idleTimeout: idleTimeout)
    }

    struct Body: Encodable {
        struct Message: Encodable { let role: String; let content: String }
        let model: String
        let system: String
        let messages: [Message]
        let max_tokens: Int
        let stream = true
    }

    struct Event: Decodable {
        struct Usage: Decodable { let input_tokens: Int?; let output_tokens: Int? }
        struct Message: Decodable { let usage: Usage? }
        struct Delta: Decodable { let type: String?; let text: String? }
        struct Failure: Decodable { let type: String?; let message: String? }
        let type: String
        let message: Message?
        let delta: Delta?
        let usage: Usage?
        let error: Failure?
    }

    public func stream(_ request: CompletionRequest) -> AsyncThrowingStream<CompletionEvent, any Error> {
        let body = (try? JSONEncoder().encode(Body(
            model: model, system: request.system,
            messages: request.messages.map { .init(role: $0.role.rawValue, content: $0.content) },
            max_tokens: request.maxOutputTokens
        ))) ?? Data()
        var headers = [("anthropic-version", Self.apiVersion)]
        if let apiKey = endpoint.apiKey { headers.append(("x-api-key", apiKey)) }
        // Input tokens arrive in message_start, output tokens in message_delta: report them together.
        let inputTokens = InputTokens()
        return endpoint.http.stream(url: endpoint.baseURL + "/v1/messages", headers: headers, body: body) { event in
            let decoded = try JSONDecoder().decode(Event.self, from: Data(event.data.utf8))
            switch decoded.type {
            case "message_start":
                inputTokens.value = decoded.message?.usage?.input_tokens
                return []
            case "content_block_delta":
                guard let text = decoded.delta?.text, !text.isEmpty else { return [] }
                return [.delta(text)]
            case "message_delta":
                guard let output = decoded.usage?.output_tokens, let input = inputTokens.value else { return [] }
                return [.usage(inputTokens: input, outputTokens: output)]
            case "message_stop":
                return nil
            case "error":
                let kind: ProviderError.Kind = decoded.error?.type == "overloaded_error" || decoded.error?.type == "api_error" ? .unavailable : .rejected
                throw ProviderError(kind, decoded.error?.message ?? "error in stream")
            default:
                return [] // ping, content_block_start/stop
            }
        }
    }

    /// Per-stream state shared with the decode closure; events of one stream are decoded one at a time.
    final class InputTokens: @unchecked Sendable {
        var value: Int?
    }
}
