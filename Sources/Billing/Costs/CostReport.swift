import Foundation
import Hummingbird

/// What the operator sees of a tenant's LLM spending (FR42): real time, from the usage ledger. Amounts are
/// micro-dollars; days are UTC. No conversation content: ids, models, token counts and costs only.
public struct CostReport: ResponseEncodable, Sendable {
    public struct Day: Codable, Sendable, Equatable {
        public let day: String
        public let costMicros: Int64
        public let turns: Int
        public let users: Int
        public let inputTokens: Int64
        public let outputTokens: Int64

        /// A day with no usage.
        public static func empty(_ day: String) -> Day {
            Day(day: day, costMicros: 0, turns: 0, users: 0, inputTokens: 0, outputTokens: 0)
        }
    }

    public struct Model: Codable, Sendable, Equatable {
        public let provider: String
        public let model: String
        public let costMicros: Int64
        public let turns: Int
    }

    public struct Spender: Codable, Sendable, Equatable {
        public let userId: UUID
        public let costMicros: Int64
        public let turns: Int
        public let tokens: Int64
    }

    public struct Month: Codable, Sendable, Equatable {
        /// The first day of the calendar month (UTC) the figures cover.
        public let month: String
        public let costMicros: Int64
        /// People with at least one coached answer this month.
        public let activeUsers: Int
        public let costPerUserMicros: Int64
        /// The tenant's target cost per user per month.
        public let targetCostMicros: Int64
        public let overTarget: Bool
    }

    public let month: Month
    /// The last `days` days, newest first (days without usage are left out).
    public let days: [Day]
    /// This month, per provider and model, most expensive first.
    public let models: [Model]
    /// This month's most expensive people.
    public let topUsers: [Spender]
}

/// One person's usage for support: their month, their recent days and their usage records — never content.
public struct UserUsage: ResponseEncodable, Sendable {
    public struct Record: Codable, Sendable, Equatable {
        public let id: UUID
        public let createdAt: Date
        public let threadId: UUID?
        public let provider: String
        public let model: String
        public let inputTokens: Int
        public let outputTokens: Int
        public let estimated: Bool
        public let costMicros: Int64
        public let timeToFirstTokenMs: Int?
        public let totalMs: Int
        public let outcome: String
    }

    public let userId: UUID
    public let monthCostMicros: Int64
    public let days: [CostReport.Day]
    /// The newest records first.
    public let records: [Record]
    public let subscription: SubscriptionView
}
