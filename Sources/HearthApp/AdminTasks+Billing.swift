import Billing
import Foundation
import HearthPlatform
import Logging

/// `hearth tenant plan` and `hearth tenant limits`: the same policies the operator API edits, for deployments
/// and benchmarks. Options left out keep their value.
extension AdminTasks {
    public struct PlanChanges: Sendable {
        public var name: String?
        public var productIDs: [String]?
        public var requestsPerMinute: Int?
        public var tokensPerDay: Int64?
        public var concurrentStreams: Int?
        public var monthlyBudgetMicros: Int64?
        public var economyAtPercent: Int?

        public init() {}
    }

    /// Changes a plan, or creates it (then `name` and every limit are required).
    public static func setPlan(_ config: Config, logger: Logger, tenantSlug: String, code: String, changes: PlanChanges) async throws -> Plan {
        let keyRing = try config.requireKeyRing()
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            let store = PlanStore(database: database)
            let plan: Plan
            if let existing = try await store.plans(tenantID: tenant.id).first(where: { $0.code == code }) {
                plan = Plan(code: code, name: changes.name ?? existing.name, productIds: changes.productIDs ?? existing.productIds,
                            requestsPerMinute: changes.requestsPerMinute ?? existing.requestsPerMinute,
                            tokensPerDay: changes.tokensPerDay ?? existing.tokensPerDay,
                            concurrentStreams: changes.concurrentStreams ?? existing.concurrentStreams,
                            monthlyBudgetMicros: changes.monthlyBudgetMicros ?? existing.monthlyBudgetMicros,
                            economyAtPercent: changes.economyAtPercent ?? existing.economyAtPercent)
            } else {
                guard let name = changes.name, let perMinute = changes.requestsPerMinute, let perDay = changes.tokensPerDay,
                      let streams = changes.concurrentStreams, let budget = changes.monthlyBudgetMicros else {
                    throw ConfigError("a new plan needs --name, --requests-per-minute, --tokens-per-day, --concurrent-streams and --monthly-budget-micros")
                }
                plan = Plan(code: code, name: name, productIds: changes.productIDs ?? [], requestsPerMinute: perMinute, tokensPerDay: perDay,
                            concurrentStreams: streams, monthlyBudgetMicros: budget, economyAtPercent: changes.economyAtPercent ?? 80)
            }
            return try await store.save(plan, tenantID: tenant.id)
        }
    }

    public static func setLimits(_ config: Config, logger: Logger, tenantSlug: String, requestsPerSecond: Int?, signupsPerHour: Int?,
                                 loginsPerMinute: Int?) async throws -> TenantLimits {
        let keyRing = try config.requireKeyRing()
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            let store = PlanStore(database: database)
            var limits = try await store.policies(tenantID: tenant.id).limits
            limits.requestsPerSecond = requestsPerSecond ?? limits.requestsPerSecond
            limits.signupsPerHourPerAddress = signupsPerHour ?? limits.signupsPerHourPerAddress
            limits.loginsPerMinutePerAddress = loginsPerMinute ?? limits.loginsPerMinutePerAddress
            return try await store.save(limits, tenantID: tenant.id)
        }
    }
}
