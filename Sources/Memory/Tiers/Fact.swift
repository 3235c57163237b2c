import Foundation

/// The memory document's seven kinds of long-term fact.
public enum FactCategory: String, Codable, Sendable, CaseIterable {
    /// Name, age, occupation, family.
    case identity
    /// How they like to be coached, likes and dislikes.
    case preference
    /// Recurring concerns and patterns.
    case theme
    /// Life events and milestones.
    case event
    /// What helps them cope.
    case strategy
    /// What causes distress.
    case trigger
    /// What they are working toward.
    case goal
}

/// What a fact says: sealed as one JSON document with the user's data key.
public struct FactContent: Codable, Sendable, Equatable {
    /// Third person, one sentence: "Stays silent when they disagree with a direction".
    public var text: String
    /// For a recurring theme, the ``ThemeLexicon`` theme it names: how later messages are recognised as the same pattern.
    public var theme: String?
    /// A fact only one of which can hold at a time ("occupation", "name"): a new value supersedes the old.
    public var slot: String?

    public init(text: String, theme: String? = nil, slot: String? = nil) {
        self.text = text
        self.theme = theme
        self.slot = slot
    }

    /// Content written by someone other than the offline extractor (a model, the person): a theme or trigger
    /// that states a ``ThemeLexicon`` theme is tagged with it, so later messages can match it.
    static func recognising(_ text: String, category: FactCategory, slot: String? = nil) -> FactContent {
        let theme = category == .theme || category == .trigger ? ThemeLexicon.themes(in: text).first?.id : nil
        return FactContent(text: text, theme: theme, slot: slot)
    }
}

/// Tier 3: a long-term fact with its evidence, as the memory API shows it.
public struct StoredFact: Codable, Sendable, Equatable {
    public enum Origin: String, Codable, Sendable { case extracted, user }

    public let id: UUID
    public let category: FactCategory
    public let content: FactContent
    public let confidence: Double
    /// Sessions in which it came up (each counted once).
    public let mentionCount: Int
    public let sourceThreadIDs: [UUID]
    /// Coaching domains of those sessions.
    public let domains: [String]
    public let origin: Origin
    public let active: Bool
    public let firstMentionedAt: Date
    public let lastMentionedAt: Date
    public let validFrom: Date
    /// Set when a later fact contradicted it (`supersededBy`); it is then inactive but kept.
    public let validUntil: Date?
    public let supersededBy: UUID?
}

/// A fact as the chat turn reads it (the columns ``StoredFact`` has that the prompt and pattern detection use).
public struct RememberedFact: Sendable, Equatable {
    public let id: UUID
    public let category: FactCategory
    public let content: FactContent
    public let mentionCount: Int
    /// The last session counted in `mentionCount`.
    public let lastSessionKey: String?
    public let domains: [String]
    /// Kinds of insight already drawn from it.
    public let insightKinds: Set<InsightKind>
}

public enum InsightKind: String, Codable, Sendable {
    /// The same pattern, the third time (FR8).
    case pattern
    /// The same pattern across coaching domains (FR9).
    case crossDomain = "cross_domain"
}

/// Names a session: its thread and the thread's summarized watermark before it began. Partial summaries and
/// the session's own summary share it, so one session counts once toward a fact's mentions.
public enum SessionKey {
    public static func make(threadID: UUID, summarizedSeq: Int64) -> String {
        "\(threadID.uuidString.lowercased()):\(summarizedSeq)"
    }
}
