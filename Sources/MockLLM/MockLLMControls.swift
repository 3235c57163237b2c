import Foundation
import NIOConcurrencyHelpers

/// How the mock answers. Defaults come from the command line (or the test); a request can override them
/// with `X-Mock-*` headers; tests can also script faults for the next requests.
public struct MockKnobs: Sendable, Equatable {
    /// Delay before the first token.
    public var timeToFirstToken: Duration = .zero
    /// Streaming pace; 0 sends every token at once.
    public var tokensPerSecond: Double = 0
    /// Tokens in each answer.
    public var responseTokens = 50
    /// A pause between a stream's last event and the end of its response: a real provider's final chunk often
    /// comes in a later read than its `[DONE]`.
    public var endDelay: Duration = .zero

    public init(timeToFirstToken: Duration = .zero, tokensPerSecond: Double = 0, responseTokens: Int = 50, endDelay: Duration = .zero) {
        self.timeToFirstToken = timeToFirstToken
        self.tokensPerSecond = tokensPerSecond
        self.responseTokens = responseTokens
        self.endDelay = endDelay
    }

    /// What a knob may be set to, on the command line or in a header. A value outside is refused, never clamped:
    /// a test asking for what the mock cannot do should find out (a negative length used to crash it).
    public static let tokens = 0...100_000
    public static let milliseconds = 0...600_000
    /// 0 sends every token at once; otherwise at least one token every 100 seconds.
    public static let tokensPerSecond = 0.01...1_000_000.0

    public static func isValid(tokensPerSecond value: Double) -> Bool { value == 0 || Self.tokensPerSecond.contains(value) }
}

/// A misbehaviour the mock can be told to show.
public enum MockFault: Sendable, Equatable {
    /// Answer with this HTTP status (429, 500, 503, 400, …) and an error body.
    case status(Int)
    /// Answer 429 with `Retry-After` in seconds.
    case rateLimited(retryAfterSeconds: Int)
    /// Send the response head, then nothing, ever.
    case stall
    /// Stream this many tokens, then drop the connection.
    case disconnect(afterTokens: Int)
    /// Stream this many tokens, then a chunk that is not JSON.
    case malformed(afterTokens: Int)

    /// Parses the `X-Mock-Fault` header: `429`, `429:2` (with `Retry-After: 2`), `stall`, `disconnect:5`, `malformed:3`
    /// (`disconnect` alone: at once).
    /// `nil` for anything else.
    public init?(header: String) {
        let parts = header.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let after: Int? = parts.count > 1 ? Int(parts[1]).flatMap { $0 >= 0 ? $0 : nil } : 0
        switch (parts[0], after) {
        case ("stall", _) where parts.count == 1: self = .stall
        case ("disconnect", let after?): self = .disconnect(afterTokens: after)
        case ("malformed", let after?): self = .malformed(afterTokens: after)
        case ("429", let after?) where parts.count == 2: self = .rateLimited(retryAfterSeconds: after)
        default:
            guard parts.count == 1, let code = Int(parts[0]), (400...599).contains(code) else { return nil }
            self = .status(code)
        }
    }
}

/// One message of a request's conversation, as the mock received it (the system prompt excluded).
public struct MockMessage: Sendable, Equatable, Decodable {
    public let role: String
    /// `nil` when the content is not plain text.
    public let content: String?

    public init(role: String, content: String?) {
        self.role = role
        self.content = content
    }

    enum CodingKeys: String, CodingKey { case role, content }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(String.self, forKey: .role)
        content = try? container.decode(String.self, forKey: .content)
    }
}

/// Shared, thread-safe state of a running mock: knobs, the fault script, a request counter and, when a test
/// asks, the conversations it was sent.
public final class MockLLMControls: Sendable {
    private struct State {
        var knobs: MockKnobs
        var script: [MockFault?] = []
        var replies: [String] = []
        var requests = 0
        var stallsLeft = 0
        var holdAfter: Int?
        var held: [CheckedContinuation<Void, Never>] = []
        var clientPorts: Set<Int> = []
        var recording = false
        var conversations: [[MockMessage]] = []
        var systemPrompts: [String] = []
    }

    private let state: NIOLockedValueBox<State>

    public init(knobs: MockKnobs = .init()) {
        state = .init(State(knobs: knobs))
    }

    public var knobs: MockKnobs {
        get { state.withLockedValue { $0.knobs } }
        set { state.withLockedValue { $0.knobs = newValue } }
    }

    /// The next requests behave as listed, in order (`nil` = normally); afterwards, normally again.
    public func script(_ faults: [MockFault?]) {
        state.withLockedValue { $0.script = faults }
    }

    /// The next answers, in order, instead of filler words (a model's JSON, say); afterwards, filler again.
    public func scriptReplies(_ replies: [String]) {
        state.withLockedValue { $0.replies = replies }
    }

    func nextReply() -> String? {
        state.withLockedValue { $0.replies.isEmpty ? nil : $0.replies.removeFirst() }
    }

    /// Requests received so far.
    public var requestCount: Int { state.withLockedValue { $0.requests } }

    /// The connections those requests came on (one per client port): fewer than the requests when the client
    /// keeps its connections alive and reuses them.
    public var connectionCount: Int { state.withLockedValue { $0.clientPorts.count } }

    /// From now on, streamed answers pause after this many tokens until ``release()``: a test can then act while
    /// an answer is certainly in flight.
    public func hold(afterTokens tokens: Int) {
        state.withLockedValue { $0.holdAfter = tokens }
    }

    /// Lets the held answers go on, and stops holding.
    public func release() {
        let held = state.withLockedValue { state in
            state.holdAfter = nil
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0.resume() }
    }

    /// Waits for ``release()`` when an answer is held after `tokens`.
    func pause(after tokens: Int) async {
        guard state.withLockedValue({ $0.holdAfter == tokens }) else { return }
        await withCheckedContinuation { continuation in
            let waiting = state.withLockedValue { state in
                guard state.holdAfter == tokens else { return false }
                state.held.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Stalled responses whose client closed the connection before the stall ended (it lasts five seconds).
    public var stallsLeft: Int { state.withLockedValue { $0.stallsLeft } }

    func noteStallLeft() {
        state.withLockedValue { $0.stallsLeft += 1 }
    }

    /// From now on keep each request's conversation (off by default: decoding it would load benchmarks).
    public func recordConversations() {
        state.withLockedValue { $0.recording = true }
    }

    /// The conversations of the requests received since ``recordConversations()``, oldest first.
    public var conversations: [[MockMessage]] { state.withLockedValue { $0.conversations } }

    /// Their system prompts, in the same order ("" when a request had none).
    public var systemPrompts: [String] { state.withLockedValue { $0.systemPrompts } }

    var isRecording: Bool { state.withLockedValue { $0.recording } }

    func record(system: String, conversation: [MockMessage]) {
        state.withLockedValue {
            $0.systemPrompts.append(system)
            $0.conversations.append(conversation)
        }
    }

    /// Counts the request (and the connection it came on) and takes its scripted fault, if any.
    func nextFault(clientPort: Int?) -> MockFault? {
        state.withLockedValue { state in
            state.requests += 1
            if let clientPort { state.clientPorts.insert(clientPort) }
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
    }
}
