import Foundation
import Safety

/// Who moderates: an operator of the console, as the moderation record names them.
public struct PersonaModerator: Sendable, Equatable {
    public let id: UUID
    public let email: String

    public init(id: UUID, email: String) {
        self.id = id
        self.email = email
    }
}

/// One line of a persona's review history (`persona_reviews`): the moderation audit record.
public struct PersonaReview: Sendable, Codable, Equatable {
    public enum Action: String, Sendable, Codable {
        case submitted, screened, approved, rejected, suspended, reinstated
    }

    public enum Actor: String, Sendable, Codable {
        case creator
        case screening
        case `operator`
    }

    /// What is written: the action, by whom, why.
    struct Entry: Sendable {
        let action: Action
        let actor: Actor
        var moderator: PersonaModerator?
        var note: String?
        var screening: PersonaScreening.Result?
    }

    public let revision: Int
    public let action: Action
    public let actor: Actor
    public let operatorEmail: String?
    public let note: String?
    public let screening: PersonaView.Screening?
    public let at: Date
}
