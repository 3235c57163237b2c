import Foundation
import Safety
import Hummingbird

/// The kinds of session a thread can be (Serenity's session types); they shape the coach's instructions.
public enum SessionType: String, Codable, Sendable, CaseIterable {
    case freeform
    case checkIn = "check_in"
    case guidedExercise = "guided_exercise"
    case crisisSupport = "crisis_support"
    case goalReview = "goal_review"

    /// An unknown type is answered with the ones there are (the synthesized decoder's error names the Swift type).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let type = SessionType(rawValue: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "sessionType must be one of \(Self.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self = type
    }
}

public struct ThreadView: ResponseEncodable, Sendable, Equatable {
    public let id: UUID
    public let title: String?
    public let sessionType: SessionType
    /// The coaching domain (career, fitness, …); `nil` when the thread has none.
    public let domain: String?
    /// The creator persona it was started with (docs/api.md, "Personas"); `nil` for Hearth's own coach.
    public let personaID: UUID?
    public let createdAt: Date
    public let updatedAt: Date
}

public struct ThreadList: ResponseEncodable, Sendable {
    public let threads: [ThreadView]
    public let nextCursor: String?
}

public enum MessageStatus: String, Codable, Sendable {
    /// Stored in full.
    case complete
    /// Being generated right now.
    case streaming
    /// The provider failed part-way; the partial text is kept and the answer can be retried.
    case interrupted
    /// No provider could answer; the content is the "temporarily unavailable" text; can be retried.
    case failed
}

public struct MessageView: ResponseEncodable, Sendable, Equatable {
    public let id: UUID
    public let role: String
    public let content: String
    public let status: MessageStatus
    public let replyTo: UUID?
    public let provider: String?
    public let model: String?
    public let createdAt: Date
    /// Set on a message that showed a crisis and on its answer (absent otherwise).
    public var crisisKind: CrisisKind? = nil
}

public struct MessagePage: ResponseEncodable, Sendable {
    public let messages: [MessageView]
    /// Pass as `cursor` for the next page; absent on the last page.
    public let nextCursor: String?
}

/// An opaque pagination cursor over an increasing sequence number.
struct Cursor {
    let position: Int64

    init(position: Int64) { self.position = position }

    init?(_ string: String) {
        guard string.hasPrefix("c"), let value = Int64(string.dropFirst(), radix: 36), value >= 0 else { return nil }
        position = value
    }

    var string: String { "c" + String(position, radix: 36) }
}

/// `POST /v1/threads/{id}/prompt-preview`: what a turn would send to the model (the memory issue's debug view).
public struct PromptPreview: ResponseEncodable, Sendable {
    public struct Message: Encodable, Sendable { let role: String; let content: String }
    public struct Section: Encodable, Sendable { let title: String; let items: [String] }
    /// The coaching domain the message would be answered in.
    public let domain: String?
    /// The crisis the message shows, if any (nothing is recorded for a preview).
    public let crisis: CrisisKind?
    public let system: String
    public let messages: [Message]
    /// The remembered context that made it into the system prompt, section by section.
    public let sections: [Section]
    public let estimatedInputTokens: Int
}
