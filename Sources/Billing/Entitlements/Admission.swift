import Foundation
import HearthPlatform
import HTTPTypes

/// Whether a person may be coached now: what `hearth_coaching_admit` (migrations/0022_admission.sql) decided in
/// the turn's first round trip, from their trial or subscription, their plan's monthly budget, tokens per day and
/// concurrent answers. Read by the chat turn, which refuses before anything is stored.
public struct Admission: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case admitted
        case subscriptionRequired = "subscription_required"
        case budgetExhausted = "budget_exhausted"
        case rateLimited = "rate_limited"
    }

    public let outcome: Outcome
    /// Why a subscription is required: `trial_ended`, `trial_sessions_used`, or the subscription's status.
    let reason: String?
    let limit: String?
    let quota: Int64?
    let window: Int?
    let reset: Int?
    /// Admitted: the model to answer with when nearing the budget.
    let economy: String?

    /// Reads the object `hearth_coaching_admit` returns, on every turn: with `JSONFields`, not `JSONDecoder`.
    public init(json: String) throws {
        let fields = try JSONFields.read(json, Self.paths)
        guard let outcome = fields[0]?.string.flatMap(Outcome.init(rawValue:)) else { throw Unreadable() }
        self.outcome = outcome
        reason = fields[1]?.string
        limit = fields[2]?.string
        quota = fields[3]?.int.map(Int64.init)
        window = fields[4]?.int
        reset = fields[5]?.int
        economy = fields[6]?.string
    }

    struct Unreadable: Error {}

    private static let paths: [[JSONFields.Step]] = ["outcome", "reason", "limit", "quota", "window", "reset", "economy"].map { [.key($0)] }

    /// The model of the tenant's primary provider to answer with instead of its usual one: set when the person is
    /// nearing their monthly budget and the tenant named an economy model.
    public var economyModel: String? { outcome == .admitted ? economy : nil }

    /// What a refused request answers; `nil` when admitted.
    public var refusal: APIError? {
        switch outcome {
        case .admitted:
            return nil
        case .subscriptionRequired:
            let message = switch reason {
            case "trial_ended": "Your free trial has ended. Subscribe to keep coaching; your conversations and context stay available."
            case "trial_sessions_used": "You have used the sessions of your free trial. Subscribe to start a new one; your conversations stay available."
            case "billing_retry": "Your subscription payment did not go through. Update your payment method in the App Store to keep coaching."
            default: "Your subscription is not active. Subscribe to keep coaching; your conversations and context stay available."
            }
            return APIError(.init(code: 402, reasonPhrase: "Payment Required"), code: "subscription_required", message: message)
        case .budgetExhausted:
            let reset = reset ?? 3600
            var error = APIError.tooManyRequests(
                "budget_exhausted", "You have reached this month's coaching allowance. It renews in \(Self.days(reset)).", retryAfter: reset
            )
            error.headers.append(contentsOf: RateLimit.exhausted(limit ?? "monthly-budget", quota: quota ?? 0, window: nil, reset: reset).headers)
            return error
        case .rateLimited:
            return RateLimit.exhausted(limit ?? "limit", quota: quota ?? 0, window: window, reset: reset ?? 1).refusal
        }
    }

    private static func days(_ seconds: Int) -> String {
        let days = (seconds + 86_399) / 86_400
        return days == 1 ? "1 day" : "\(days) days"
    }
}
