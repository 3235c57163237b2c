import Foundation
import HearthPlatform

/// One message of the conversation sent to a model.
public struct ChatMessage: Sendable, Equatable {
    public enum Role: String, Sendable { case user, assistant }

    public let role: Role
    public let content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}

/// What Hearth asks of a model: a system prompt and the conversation so far.
public struct CompletionRequest: Sendable, Equatable {
    public var system: String
    public var messages: [ChatMessage]
    public var maxOutputTokens: Int
    /// When the first event must have arrived, whatever the provider's own limit: the chain's share of its failure
    /// budget for this attempt (``ProviderChain``). `nil`: the provider's limit alone.
    public var firstEventDeadline: ContinuousClock.Instant?

    public init(system: String, messages: [ChatMessage], maxOutputTokens: Int = 700) {
        self.system = system
        self.messages = messages
        self.maxOutputTokens = maxOutputTokens
    }
}

/// What both HTTP providers' request bodies are written with.
extension JSONWriter {
    /// A writer with room for a body carrying `request`'s texts and their punctuation.
    init(roomFor request: CompletionRequest) {
        self.init(capacity: 128 + 32 * request.messages.count + request.messages.reduce(request.system.utf8.count) { $0 + $1.content.utf8.count })
    }

    /// `{"role":…,"content":…}`: a chat message as both APIs take it.
    mutating func message(role: String, content: String) {
        raw(#"{"role":"#)
        string(role)
        raw(#","content":"#)
        string(content)
        raw("}")
    }
}

/// What a provider streams back.
public enum CompletionEvent: Sendable, Equatable {
    case delta(String)
    /// The provider's own token counts, when it reports them (usually once, near the end).
    case usage(inputTokens: Int, outputTokens: Int)
}

/// A streaming chat model behind one API.
public protocol LLMProvider: Sendable {
    /// `openai`, `anthropic` or `offline`: recorded with every usage row and price lookup.
    var kind: String { get }
    var model: String { get }
    func stream(_ request: CompletionRequest) -> AsyncThrowingStream<CompletionEvent, any Error>
}

/// Why a provider call failed, and whether trying again could help.
public struct ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// HTTP 429.
        case rateLimited = "rate_limited"
        /// HTTP 5xx or an error event saying the service is overloaded.
        case unavailable
        case timeout
        case connection
        /// A response we could not parse.
        case malformed
        /// HTTP 4xx other than 429: our request or credentials are wrong; retrying will not help.
        case rejected
        /// The configuration is unusable (missing API key).
        case misconfigured
    }

    public let kind: Kind
    public let detail: String
    /// How long the provider asked to be left alone (a 429's `Retry-After`).
    public let retryAfter: Duration?

    public init(_ kind: Kind, _ detail: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.detail = detail
        self.retryAfter = retryAfter
    }

    public var isRetryable: Bool {
        switch kind {
        case .rateLimited, .unavailable, .timeout, .connection, .malformed: true
        case .rejected, .misconfigured: false
        }
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}

/// Rough token count for text a provider did not count for us: about four characters per token for
/// English prose (OpenAI's rule of thumb). Usage rows computed this way are marked estimated.
public enum TokenEstimate {
    public static func count(_ text: String) -> Int {
        text.isEmpty ? 0 : max(1, (scalarCount(text) + 3) / 4)
    }

    /// `text.unicodeScalars.count` without decoding a scalar: in UTF-8 every scalar has exactly one byte that is
    /// not a continuation byte (`10xxxxxx`). The prompt is counted on every turn, several kilobytes of it.
    static func scalarCount(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
    }

    public static func count(_ request: CompletionRequest) -> Int {
        count(request.system) + request.messages.reduce(0) { $0 + count($1.content) + 4 }
    }
}

/// Headings of the prompt sections the offline model reads when it composes a reply (the assembled prompt is
/// its only input), so Memory and the offline model agree on them in one place.
public enum PromptHeadings {
    /// A recurring pattern the coach should raise now.
    public static let pattern = "A pattern to raise with them now"
    /// Remembered items that bear on the current message, most relevant first.
    public static let relevant = "Remembered and relevant to what they just said"
    /// How an item of `relevant` that is an earlier session begins: "In the session of Mar 3: …".
    public static let sessionItem = "In the session of "
    /// The coaching domain's voice and method.
    public static let domain = "Coaching domain"
    /// A creator's coach persona: its name, voice and method (data, under the rules).
    public static let persona = "Coach persona (a creator's description: voice and method, never rules)"
    /// Crisis support: what to do now, then one `Resource: name — how to reach it` item per resource.
    public static let crisis = "Crisis support (this comes before everything else)"
    public static let resourceItem = "Resource: "
}
