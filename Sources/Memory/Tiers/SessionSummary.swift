import Foundation

/// Tier 2: what one session was about, in the memory document's format (topics, emotional arc, key insight,
/// follow-ups, the person's own words). Stored sealed with the user's data key.
public struct SessionSummary: Codable, Sendable, Equatable {
    public var topics: [String]
    /// "stung -> hopeful"
    public var emotionalArc: String
    public var keyInsight: String?
    public var followUps: [String]
    public var userQuote: String?
    /// The whole summary as one short paragraph (at most about 100 words): what prompts carry.
    public var text: String

    public init(topics: [String], emotionalArc: String, keyInsight: String?, followUps: [String], userQuote: String?, text: String) {
        self.topics = topics
        self.emotionalArc = emotionalArc
        self.keyInsight = keyInsight
        self.followUps = followUps
        self.userQuote = userQuote
        self.text = text
    }

    /// A summary whose paragraph is composed from its fields.
    init(topics: [String], emotionalArc: String, keyInsight: String?, followUps: [String], userQuote: String?) {
        self.init(topics: topics, emotionalArc: emotionalArc, keyInsight: keyInsight, followUps: followUps, userQuote: userQuote,
                  text: Self.compose(topics: topics, emotionalArc: emotionalArc, keyInsight: keyInsight, followUps: followUps, userQuote: userQuote))
    }

    /// The paragraph in the document's field order, from the fields.
    private static func compose(topics: [String], emotionalArc: String, keyInsight: String?, followUps: [String], userQuote: String?) -> String {
        var parts = ["Topics: \(topics.isEmpty ? "general check-in" : topics.joined(separator: ", "))."]
        parts.append("Emotional arc: \(emotionalArc).")
        if let keyInsight { parts.append("Key insight: \(keyInsight)") }
        if !followUps.isEmpty { parts.append("Follow-ups: \(followUps.joined(separator: "; ")).") }
        if let userQuote { parts.append("Their words: \"\(userQuote)\"") }
        return parts.joined(separator: " ")
    }
}

/// A stored summary with its bookkeeping, as the memory API and the prompt see it.
public struct StoredSummary: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// A whole session.
        case session
        /// The older part of a long session still open (replaced by the session's summary when it ends).
        case partial
    }

    public let id: UUID
    public let threadID: UUID
    public let kind: Kind
    public let domain: String?
    public let summary: SessionSummary
    public let tokenCount: Int
    public let sessionStartedAt: Date
    public let sessionEndedAt: Date
    /// morning, afternoon, evening or night (UTC; the app knows the person's time zone, Hearth does not).
    public let timeOfDay: String
    public let archived: Bool
    public let createdAt: Date

    static func timeOfDay(_ date: Date) -> String {
        switch utc.component(.hour, from: date) {
        case 5..<12: "morning"
        case 12..<17: "afternoon"
        case 17..<21: "evening"
        default: "night"
        }
    }

    /// The calendar summaries are dated in: Hearth does not know the person's time zone (the app does).
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
