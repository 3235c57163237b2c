import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `billing_plans` and `billing_settings` (migrations/0021_billing.sql). Every tenant has its settings and
/// the `trial` and `premium` plans from creation (a trigger), so reads never find them missing.
public struct PlanStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private var logger: Logger { database.logger }

    static let planColumns = """
        code, name, product_ids, requests_per_minute, tokens_per_day, concurrent_streams, monthly_budget_micros, economy_at_percent
        """

    /// Everything an operator edits, read in one transaction: the settings, the tenant's own limits, the plans.
    public func policies(tenantID: UUID) async throws -> (settings: BillingSettings, limits: TenantLimits, plans: [Plan]) {
        try await database.withTenant(tenantID) { [self] connection in
            (try await settings(on: connection), try await TenantLimits.read(on: connection, logger: logger), try await plans(on: connection))
        }
    }

    /// Replaces the tenant's own limits (`tenant_limits` belongs to HearthPlatform's rate limits, which say how).
    public func save(_ limits: TenantLimits, tenantID: UUID, audit: Audited? = nil) async throws -> TenantLimits {
        let limits = try limits.validated()
        try await database.withTenant(tenantID) { [self] connection in
            try await limits.save(on: connection, logger: logger)
            try await audit?.record("limits.save", "\(limits.requestsPerSecond) requests/s, \(limits.signupsPerHourPerAddress) sign-ups/hour, "
                                    + "\(limits.loginsPerMinutePerAddress) sign-ins/min per address", tenantID: tenantID, on: connection)
        }
        return limits
    }

    public func plans(tenantID: UUID) async throws -> [Plan] {
        try await database.withTenant(tenantID) { [self] connection in
            try await plans(on: connection)
        }
    }

    func plans(on connection: PostgresConnection) async throws -> [Plan] {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.planColumns) FROM billing_plans WHERE tenant_id = hearth_tenant_id() ORDER BY code = 'trial' DESC, code"),
            logger: logger
        )
        var plans: [Plan] = []
        for try await (code, name, products, perMinute, perDay, streams, budget, economy)
            in rows.decode((String, String, [String], Int, Int64, Int, Int64, Int).self) {
            plans.append(Plan(code: code, name: name, productIds: products, requestsPerMinute: perMinute, tokensPerDay: perDay,
                              concurrentStreams: streams, monthlyBudgetMicros: budget, economyAtPercent: economy))
        }
        return plans
    }

    /// Creates the plan or replaces its policy.
    public func save(_ plan: Plan, tenantID: UUID, audit: Audited? = nil) async throws -> Plan {
        let plan = try plan.validated()
        try await database.withTenant(tenantID) { [self] connection in
            try await audit?.record("plan.save", "\(plan.code): \(plan.requestsPerMinute) requests/min, \(plan.tokensPerDay) tokens/day, "
                                    + "\(plan.concurrentStreams) streams, budget \(plan.monthlyBudgetMicros) µ$, products \(plan.productIds.joined(separator: " "))",
                                    tenantID: tenantID, on: connection)
            try await connection.query(
                """
                INSERT INTO billing_plans (tenant_id, code, name, product_ids, requests_per_minute, tokens_per_day, concurrent_streams,
                                           monthly_budget_micros, economy_at_percent)
                VALUES (\(tenantID), \(plan.code), \(plan.name), \(plan.productIds), \(plan.requestsPerMinute), \(plan.tokensPerDay),
                        \(plan.concurrentStreams), \(plan.monthlyBudgetMicros), \(plan.economyAtPercent))
                ON CONFLICT (tenant_id, code) DO UPDATE SET
                    name = excluded.name, product_ids = excluded.product_ids, requests_per_minute = excluded.requests_per_minute,
                    tokens_per_day = excluded.tokens_per_day, concurrent_streams = excluded.concurrent_streams,
                    monthly_budget_micros = excluded.monthly_budget_micros, economy_at_percent = excluded.economy_at_percent,
                    updated_at = now()
                """,
                logger: logger
            )
        }
        return plan
    }

    func settings(on connection: PostgresConnection) async throws -> BillingSettings {
        let rows = try await connection.query(
            "SELECT trial_days, trial_sessions, target_cost_micros, economy_model FROM billing_settings WHERE tenant_id = hearth_tenant_id()",
            logger: logger
        )
        for try await (days, sessions, target, economy) in rows.decode((Int?, Int?, Int64, String?).self) {
            return BillingSettings(trialDays: days, trialSessions: sessions, targetCostMicros: target, economyModel: economy)
        }
        throw APIError.internalError
    }

    public func save(_ settings: BillingSettings, tenantID: UUID, audit: Audited? = nil) async throws -> BillingSettings {
        let settings = try settings.validated()
        try await database.withTenant(tenantID) { [self] connection in
            try await audit?.record("billing.settings", "trial \(settings.trialDays.map { "\($0) days" } ?? "no day bound"), "
                                    + "\(settings.trialSessions.map { "\($0) sessions" } ?? "no session bound"), target \(settings.targetCostMicros) µ$, "
                                    + "economy model \(settings.economyModel ?? "none")", tenantID: tenantID, on: connection)
            try await connection.query(
                """
                UPDATE billing_settings SET trial_days = \(settings.trialDays), trial_sessions = \(settings.trialSessions),
                    target_cost_micros = \(settings.targetCostMicros), economy_model = \(settings.economyModel), updated_at = now()
                WHERE tenant_id = \(tenantID)
                """,
                logger: logger
            )
        }
        return settings
    }
}
