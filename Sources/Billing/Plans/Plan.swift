import Foundation
import HearthPlatform

/// A plan and its per-user policy (`billing_plans`): the limits and the monthly budget of everyone on it.
/// `trial` is the plan of people in their free trial; a paid plan lists the App Store products that buy it.
/// Edited by operators; a change applies to the next request on every instance (admission reads it each time).
public struct Plan: Codable, Sendable, Equatable {
    public var code: String
    public var name: String
    public var productIds: [String]
    public var requestsPerMinute: Int
    public var tokensPerDay: Int64
    public var concurrentStreams: Int
    /// The most a person on this plan may cost per calendar month (UTC), in micro-dollars: at it, coaching
    /// answers `budget_exhausted` until the month ends.
    public var monthlyBudgetMicros: Int64
    /// From this share of the budget on, the tenant's economy model answers.
    public var economyAtPercent: Int

    public static let trialCode = "trial"

    public init(code: String, name: String, productIds: [String] = [], requestsPerMinute: Int, tokensPerDay: Int64,
                concurrentStreams: Int, monthlyBudgetMicros: Int64, economyAtPercent: Int = 80) {
        self.code = code
        self.name = name
        self.productIds = productIds
        self.requestsPerMinute = requestsPerMinute
        self.tokensPerDay = tokensPerDay
        self.concurrentStreams = concurrentStreams
        self.monthlyBudgetMicros = monthlyBudgetMicros
        self.economyAtPercent = economyAtPercent
    }

    /// The same bounds as the table's checks, said as a 422 naming the field.
    public func validated() throws -> Plan {
        guard code.wholeMatch(of: /[a-z][a-z0-9_-]{0,31}/) != nil else {
            throw APIError.validation("code must be 1 to 32 lowercase letters, digits, - or _, starting with a letter.")
        }
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...80).contains(name.count) else { throw APIError.validation("name must be 1 to 80 characters.") }
        guard productIds.count <= 20, productIds.allSatisfy({ (1...100).contains($0.count) }) else {
            throw APIError.validation("productIds must be at most 20 product ids of 1 to 100 characters.")
        }
        try Self.check("requestsPerMinute", Int64(requestsPerMinute), 1...100_000)
        try Self.check("tokensPerDay", tokensPerDay, 1...1_000_000_000)
        try Self.check("concurrentStreams", Int64(concurrentStreams), 1...100)
        try Self.check("monthlyBudgetMicros", monthlyBudgetMicros, 1...1_000_000_000_000)
        try Self.check("economyAtPercent", Int64(economyAtPercent), 1...100)
        var plan = self
        plan.name = name
        return plan
    }

    private static func check(_ field: String, _ value: Int64, _ range: ClosedRange<Int64>) throws {
        guard range.contains(value) else { throw APIError.validation("\(field) must be between \(range.lowerBound) and \(range.upperBound).") }
    }
}

/// A tenant's trial and cost settings (`billing_settings`).
public struct BillingSettings: Codable, Sendable, Equatable {
    /// Days of trial from the first coached message; `nil`: not bounded by days.
    public var trialDays: Int?
    /// Sessions (threads coached in) the trial covers; `nil`: not bounded by sessions; 0: no trial.
    public var trialSessions: Int?
    /// What the operator aims to spend per user per month, in micro-dollars (the PRD's $2).
    public var targetCostMicros: Int64
    /// The cheaper model of the tenant's primary provider that answers people nearing their budget; `nil`: none.
    public var economyModel: String?

    public init(trialDays: Int? = 7, trialSessions: Int? = nil, targetCostMicros: Int64 = 2_000_000, economyModel: String? = nil) {
        self.trialDays = trialDays
        self.trialSessions = trialSessions
        self.targetCostMicros = targetCostMicros
        self.economyModel = economyModel
    }

    public func validated() throws -> BillingSettings {
        if let trialDays, !(1...365).contains(trialDays) { throw APIError.validation("trialDays must be between 1 and 365, or null.") }
        if let trialSessions, !(0...1000).contains(trialSessions) {
            throw APIError.validation("trialSessions must be between 0 and 1000, or null.")
        }
        guard (0...1_000_000_000).contains(targetCostMicros) else { throw APIError.validation("targetCostMicros must be between 0 and 1000000000.") }
        var settings = self
        settings.economyModel = economyModel?.trimmingCharacters(in: .whitespaces)
        if settings.economyModel?.isEmpty == true { settings.economyModel = nil }
        if let model = settings.economyModel, model.count > 200 { throw APIError.validation("economyModel must be at most 200 characters.") }
        return settings
    }
}
