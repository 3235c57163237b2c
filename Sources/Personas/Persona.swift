import Foundation
import Safety

/// A persona's review state (migration 0015): of its working copy, except `suspended`, which takes the whole
/// persona down until a moderator reinstates it.
public enum PersonaStatus: String, Sendable, Codable {
    case draft
    /// Waiting in the moderation queue.
    case submitted
    case approved
    case rejected
    case suspended
}

/// A persona as its creator sees it (`/v1/personas`): both copies, where the review stands, and why.
public struct PersonaView: Sendable, Codable, Equatable {
    public struct Screening: Sendable, Codable, Equatable {
        public let verdict: PersonaScreening.Verdict
        public let reasons: [PersonaScreening.Reason]
    }

    public let id: UUID
    public let status: PersonaStatus
    /// Bumped by every edit of the working copy.
    public let revision: Int
    /// The working copy.
    public let draft: PersonaContent
    /// What the public sees and threads coach with: the copy last approved (`nil` until then).
    public let published: PersonaContent?
    public let publishedRevision: Int?
    public let publishedAt: Date?
    /// The automatic screening of the last submitted revision.
    public let screening: Screening?
    /// Why it was last rejected or suspended.
    public let reviewNote: String?
    public let hasAvatar: Bool
    /// Shared by link and shown on its page: approved at least once and not suspended.
    public let isLive: Bool
    public let createdAt: Date
    public let updatedAt: Date

    init(id: UUID, status: PersonaStatus, revision: Int, draft: PersonaContent, published: PersonaContent?, publishedRevision: Int?,
         publishedAt: Date?, screening: Screening?, reviewNote: String?, hasAvatar: Bool, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.status = status
        self.revision = revision
        self.draft = draft
        self.published = published
        self.publishedRevision = publishedRevision
        self.publishedAt = publishedAt
        self.screening = screening
        self.reviewNote = reviewNote
        self.hasAvatar = hasAvatar
        self.isLive = published != nil && status != .suspended
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
