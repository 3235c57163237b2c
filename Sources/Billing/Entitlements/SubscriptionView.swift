import Foundation
import Hummingbird

/// `GET /v1/me/subscription` (FR35): where a person stands — trial or subscription, what is left of the trial,
/// when it renews, and their plan's limits with today's use.
public struct SubscriptionView: ResponseEncodable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case trial
        /// The trial's days have passed without a subscription.
        case trialEnded = "trial_ended"
        case active
        /// Apple is retrying a failed renewal and the person keeps access meanwhile.
        case gracePeriod = "grace_period"
        /// Apple is retrying a failed renewal; no access.
        case billingRetry = "billing_retry"
        case expired
        case refunded
        case revoked
    }

    public struct Trial: Codable, Sendable, Equatable {
        /// `nil` until the first coached message, which starts the trial.
        public let startedAt: Date?
        public let endsAt: Date?
        public let daysRemaining: Int?
        public let sessionsUsed: Int
        public let sessionsLimit: Int?
        public let sessionsRemaining: Int?
    }

    public struct PlanSummary: Codable, Sendable, Equatable {
        public let code: String
        public let name: String
    }

    public struct Limits: Codable, Sendable, Equatable {
        public let requestsPerMinute: Int
        public let tokensPerDay: Int64
        public let tokensUsedToday: Int64
        public let concurrentStreams: Int
    }

    public let status: Status
    /// Whether a coached answer would be given now (a new session, for a trial with no sessions left).
    public let canCoach: Bool
    /// The UUID the app passes as `appAccountToken` when it starts a purchase, so the App Store's notifications
    /// name the person (it is their user id).
    public let appAccountToken: UUID
    public let plan: PlanSummary
    /// Present while the status is `trial` or `trial_ended`.
    public let trial: Trial?
    public let productId: String?
    /// When a paid period ends; `renewsAt` is the same date when it renews automatically.
    public let expiresAt: Date?
    public let renewsAt: Date?
    public let autoRenew: Bool?
    public let limits: Limits
}
