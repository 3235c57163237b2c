import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A real HTTP server that speaks OpenAI chat completions (`POST /v1/chat/completions`) and Anthropic
/// Messages (`POST /v1/messages`), streaming and not, with usage — for load tests and for driving every
/// failure path of Hearth's provider layer in integration tests.
///
/// Answers are deterministic filler words (`token0 token1 …`), or what a test scripted; what matters is timing and protocol.
public enum MockLLMServer {
    /// The request context: which client port a request came from, to count connections.
    public struct Context: RequestContext {
        public var coreContext: CoreRequestContextStorage
        let clientPort: Int?

        public init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            clientPort = source.channel.remoteAddress?.port
        }
    }

    public static func buildRouter(controls: MockLLMControls) -> Router<Context> {
        let router = Router(context: Context.self)
        router.post("v1/chat/completions") { request, context in
            try await answer(request, context: context, controls: controls, dialect: .openAI)
        }
        router.post("v1/messages") { request, context in
            try await answer(request, context: context, controls: controls, dialect: .anthropic)
        }
        router.get("health") { _, _ in "ok" }
        return router
    }

    public static func buildApplication(
        controls: MockLLMControls, host: String = "127.0.0.1", port: Int = 0,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: buildRouter(controls: controls),
            configuration: .init(address: .hostname(host, port: port), serverName: "hearth-mock-llm"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) }
        )
    }

    enum Dialect { case openAI, anthropic }

    struct Incoming: Decodable {
        let stream: Bool?
    }

    /// OpenAI sends the system prompt as the first message, Anthropic as a field of its own.
    struct Conversation: Decodable {
        let messages: [MockMessage]
        let system: String?
    }

    static func answer(_ request: Request, context: Context, controls: MockLLMControls, dialect: Dialect) async throws -> Response {
        let body = try await request.body.collect(upTo: 4 * 1024 * 1024)
        guard let incoming = try? JSONDecoder().decode(Incoming.self, from: body) else {
            return invalid("The request body is not a JSON object.")
        }
        let asked: (knobs: MockKnobs, fault: MockFault?)
        do {
            asked = try overridden(controls.knobs, by: request.headers)
        } catch {
            return invalid(error.message)
        }
        var knobs = asked.knobs
        if controls.isRecording {
            guard let conversation = try? JSONDecoder().decode(Conversation.self, from: body) else {
                return invalid("The request has no messages.")
            }
            controls.record(system: conversation.system ?? conversation.messages.first { $0.role == "system" }?.content ?? "",
                            conversation: conversation.messages.filter { $0.role != "system" })
        }
        let scripted = controls.nextFault(clientPort: context.clientPort)
        // A scripted answer replaces the filler words; its words are the streamed tokens.
        let words: [String] = controls.nextReply().map { reply in
            reply.split(separator: " ", omittingEmptySubsequences: false).enumerated().map { $0.offset == 0 ? String($0.element) : " " + $0.element }
        } ?? (0..<knobs.responseTokens).map { $0 == 0 ? "token0" : " token\($0)" }
        knobs.responseTokens = words.count
        let fault = scripted ?? asked.fault
        let promptTokens = max(1, body.readableBytes / 4)

        if case .status(let code) = fault {
            let status = HTTPResponse.Status(code: code)
            let text = #"{"error":{"type":"mock_error","message":"mock fault \#(code)"}}"#
            return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        if case .rateLimited(let seconds) = fault {
            let text = #"{"error":{"type":"rate_limit_error","message":"mock fault 429"}}"#
            return Response(status: .tooManyRequests, headers: [.contentType: "application/json", HTTPField.Name("Retry-After")!: String(seconds)],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        if incoming.stream != true {
            if knobs.timeToFirstToken > .zero { try await Task.sleep(for: knobs.timeToFirstToken) }
            let text = words.joined()
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: whole(text, promptTokens: promptTokens, outputTokens: knobs.responseTokens, dialect: dialect))))
        }
        let settled = knobs
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: .init { writer in
            let knobs = settled
            if case .stall = fault {
                // Connected but silent: only SSE comments, which carry no data. Writing them is also how
                // the handler learns that the client has gone, so it ends instead of lingering.
                for _ in 0..<50 {
                    try await Task.sleep(for: .milliseconds(100))
                    do {
                        try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                    } catch {
                        controls.noteStallLeft()
                        throw error
                    }
                }
                try await writer.finish(nil)
                return
            }
            if knobs.timeToFirstToken > .zero { try await Task.sleep(for: knobs.timeToFirstToken) }
            let gap: Duration? = knobs.tokensPerSecond > 0 ? .nanoseconds(Int64(1_000_000_000 / knobs.tokensPerSecond)) : nil
            var out = ByteBuffer()
            if dialect == .anthropic {
                out.writeString(event("message_start", #"{"type":"message_start","message":{"id":"msg_mock","role":"assistant","usage":{"input_tokens":\#(promptTokens),"output_tokens":1}}}"#))
            }
            for index in 0..<knobs.responseTokens {
                switch fault {
                case .disconnect(let after) where index == after:
                    try await writer.write(out)
                    throw MockDisconnect()
                case .malformed(let after) where index == after:
                    out.writeString("data: {\"choices\": [{\"delta\": \n\n")
                    try await writer.write(out)
                    try await writer.finish(nil)
                    return
                default:
                    break
                }
                out.writeString(delta(words[index], dialect: dialect))
                if let gap {
                    try await writer.write(out)
                    out.clear()
                    try await Task.sleep(for: gap)
                }
                await controls.pause(after: index + 1)
            }
            switch dialect {
            case .openAI:
                out.writeString(#"data: {"choices":[],"usage":{"prompt_tokens":\#(promptTokens),"completion_tokens":\#(knobs.responseTokens)}}"# + "\n\n")
                out.writeString("data: [DONE]\n\n")
            case .anthropic:
                out.writeString(event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":\#(knobs.responseTokens)}}"#))
                out.writeString(event("message_stop", #"{"type":"message_stop"}"#))
            }
            try await writer.write(out)
            if knobs.endDelay > .zero { try await Task.sleep(for: knobs.endDelay) }
            try await writer.finish(nil)
        })
    }

    static func delta(_ token: String, dialect: Dialect) -> String {
        let escaped = escape(token)
        switch dialect {
        case .openAI:
            return #"data: {"choices":[{"index":0,"delta":{"content":"\#(escaped)"}}]}"# + "\n\n"
        case .anthropic:
            return event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\#(escaped)"}}"#)
        }
    }

    /// The inside of a JSON string literal.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func event(_ name: String, _ data: String) -> String { "event: \(name)\ndata: \(data)\n\n" }

    static func whole(_ text: String, promptTokens: Int, outputTokens: Int, dialect: Dialect) -> String {
        switch dialect {
        case .openAI:
            return #"{"id":"chatcmpl-mock","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"\#(escape(text))"},"finish_reason":"stop"}],"usage":{"prompt_tokens":\#(promptTokens),"completion_tokens":\#(outputTokens),"total_tokens":\#(promptTokens + outputTokens)}}"#
        case .anthropic:
            return #"{"id":"msg_mock","type":"message","role":"assistant","content":[{"type":"text","text":"\#(escape(text))"}],"stop_reason":"end_turn","usage":{"input_tokens":\#(promptTokens),"output_tokens":\#(outputTokens)}}"#
        }
    }

    /// Thrown from the body writer to drop the connection mid-stream.
    struct MockDisconnect: Error {}

    struct InvalidKnob: Error {
        let message: String
    }

    /// The `X-Mock-*` headers over the defaults, each checked against ``MockKnobs``' ranges; and the fault asked for.
    static func overridden(_ defaults: MockKnobs, by headers: HTTPFields) throws(InvalidKnob) -> (MockKnobs, MockFault?) {
        func header(_ name: String) -> String? { headers[values: HTTPField.Name(name)!].first }
        func whole(_ name: String, in range: ClosedRange<Int>) throws(InvalidKnob) -> Int? {
            guard let text = header(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw InvalidKnob(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
            }
            return value
        }
        var knobs = defaults
        if let value = try whole("X-Mock-Tokens", in: MockKnobs.tokens) { knobs.responseTokens = value }
        if let value = try whole("X-Mock-TTFT-Ms", in: MockKnobs.milliseconds) { knobs.timeToFirstToken = .milliseconds(value) }
        if let value = try whole("X-Mock-End-Delay-Ms", in: MockKnobs.milliseconds) { knobs.endDelay = .milliseconds(value) }
        if let text = header("X-Mock-TPS") {
            guard let value = Double(text), MockKnobs.isValid(tokensPerSecond: value) else {
                throw InvalidKnob(message: "X-Mock-TPS must be 0 (all at once) or from \(MockKnobs.tokensPerSecond.lowerBound) to \(Int(MockKnobs.tokensPerSecond.upperBound)).")
            }
            knobs.tokensPerSecond = value
        }
        var fault: MockFault?
        if let text = header("X-Mock-Fault") {
            guard let parsed = MockFault(header: text) else {
                throw InvalidKnob(message: "X-Mock-Fault must be a status from 400 to 599, 429:N (Retry-After N), stall, disconnect:N or malformed:N.")
            }
            fault = parsed
        }
        return (knobs, fault)
    }

    /// A request the mock cannot answer as asked: 400, in the providers' error shape.
    static func invalid(_ message: String) -> Response {
        let text = #"{"error":{"type":"invalid_request_error","message":"\#(escape(message))"}}"#
        return Response(status: .badRequest, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
