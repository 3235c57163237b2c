import Foundation
import HearthPlatform

/// Anthropic's Messages API, streamed.
public struct AnthropicProvider: LLMProvider {
    public let kind = "anthropic"
    public let model: String
    let endpoint: ProviderEndpoint

    static let apiVersion = "2023-06-01"

    /// - Parameter baseURL: e.g. `https://api.anthropic.com` (the path `/v1/messages` is added).
    public init(model: String, baseURL: String, apiKey: String?, transport: ProviderTransport, firstEventTimeout: Duration, idleTimeout: Duration) {
        self.model = model
        self.endpoint = ProviderEndpoint(baseURL: baseURL, apiKey: apiKey, transport: transport, firstEventTimeout: firstEventTimeout, idleTimeout: idleTimeout)
    }

    /// `{"model":…,"system":…,"messages":[{"role":…,"content":…},…],"max_tokens":…,"stream":true}`
    static func body(model: String, _ request: CompletionRequest) -> Data {
        var json = JSONWriter(roomFor: request)
        json.raw(#"{"model":"#)
        json.string(model)
        json.raw(#","system":"#)
        json.string(request.system)
        json.raw(#","messages":["#)
        for (index, message) in request.messages.enumerated() {
            if index > 0 { json.raw(",") }
            json.message(role: message.role.rawValue, content: message.content)
        }
        json.raw(#"],"max_tokens":"#)
        json.int(request.maxOutputTokens)
        json.raw(#","stream":true}"#)
        return json.data
    }

    /// What a stream event is read for (its `type` says which of the others it carries).
    static let eventPaths: [[JSONFields.Step]] = [
        [.key("type")],
        [.key("message"), .key("usage"), .key("input_tokens")],
        [.key("delta"), .key("text")],
        [.key("usage"), .key("output_tokens")],
        [.key("error"), .key("type")],
        [.key("error"), .key("message")],
    ]

    public func stream(_ request: CompletionRequest) -> AsyncThrowingStream<CompletionEvent, any Error> {
        let body = Self.body(model: model, request)
        var headers = [("anthropic-version", Self.apiVersion)]
        if let apiKey = endpoint.apiKey { headers.append(("x-api-key", apiKey)) }
        // Input tokens arrive in message_start, output tokens in message_delta: report them together.
        let inputTokens = InputTokens()
        return endpoint.stream(path: "/v1/messages", headers: headers, body: body, firstEventBy: request.firstEventDeadline) { event in
            let fields = try JSONFields.read(event.data, Self.eventPaths)
            switch fields[0]?.string {
            case "message_start":
                inputTokens.value = fields[1]?.int
                return []
            case "content_block_delta":
                guard let text = fields[2]?.string, !text.isEmpty else { return [] }
                return [.delta(text)]
            case "message_delta":
                guard let output = fields[3]?.int, let input = inputTokens.value else { return [] }
                return [.usage(inputTokens: input, outputTokens: output)]
            case "message_stop":
                return nil
            case "error":
                let type = fields[4]?.string
                let kind: ProviderError.Kind = type == "overloaded_error" || type == "api_error" ? .unavailable : .rejected
                throw ProviderError(kind, fields[5]?.string ?? "error in stream")
            case nil:
                throw ProviderError(.malformed, "a stream event without a type")
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
