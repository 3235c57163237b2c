import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `subscriptions` (migrations/0021_billing.sql): a person's trial and, once they subscribe, the state the
/// verified App Store data drives. The row is made by the coaching admission at their first coached message.
public struct SubscriptionStore: Sendable {
    let database: Database
    let plans: PlanStore

    public init(database: Database) {
        self.database = database
        self.plans = PlanStore(database: database)
    }

    /// `nil` when the tenant has no such user.
    public func view(tenantID: UUID, userID: UUID, now: Date = Date()) async throws -> SubscriptionView? {
        try await database.withTenant(tenantID) { connection in
            try await view(userID: userID, on: connection, now: now)
        }
    }

    /// The same, in the connection's tenant transaction: the settings, then the person's subscription (none before
    /// their first coached message: the trial plan), plan and today's tokens in one statement.
    func view(userID: UUID, on connection: PostgresConnection, now: Date = Date()) async throws -> SubscriptionView? {
        let settings = try await plans.settings(on: connection)
        let rows = try await connection.query(
            """
            SELECT s.status, s.trial_started_at, s.trial_ends_at, coalesce(cardinality(s.trial_threads), 0), s.product_id, s.expires_at,
                   s.auto_renew, p.code, p.name, p.requests_per_minute, p.tokens_per_day, p.concurrent_streams,
                   (SELECT coalesce(sum(d.input_tokens + d.output_tokens), 0)::bigint FROM usage_daily d
                    WHERE d.user_id = u.id AND d.day = (now() AT TIME ZONE 'UTC')::date)
            FROM users u
            LEFT JOIN subscriptions s ON s.user_id = u.id
            JOIN billing_plans p ON p.tenant_id = u.tenant_id AND p.code = coalesce(s.plan_code, \(Plan.trialCode))
            WHERE u.id = \(userID)
            """,
            logger: database.logger
        )
        for try await (status, startedAt, endsAt, sessionsUsed, productID, expiresAt, autoRenew, code, name, perMinute, perDay, streams, tokensToday)
            in rows.decode((String?, Date?, Date?, Int, String?, Date?, Bool?, String, String, Int, Int64, Int, Int64).self) {
            let limits = SubscriptionView.Limits(requestsPerMinute: perMinute, tokensPerDay: perDay, tokensUsedToday: tokensToday,
                                                 concurrentStreams: streams)
            let plan = SubscriptionView.PlanSummary(code: code, name: name)
            guard let status, status != "trial" else {
                return Self.trialView(settings: settings, startedAt: startedAt, endsAt: endsAt, sessionsUsed: sessionsUsed,
                                      plan: plan, limits: limits, now: now)
            }
            let current = SubscriptionView.Status(rawValue: status) ?? .expired
            let entitled = current == .active || current == .gracePeriod
            return SubscriptionView(status: current, canCoach: entitled, plan: plan, trial: nil, productId: productID, expiresAt: expiresAt,
                                    renewsAt: autoRenew == true && entitled ? expiresAt : nil, autoRenew: autoRenew, limits: limits)
        }
        return nil
    }

    /// A person in (or past) the free trial; before their first coached message the trial has not started and
    /// all of it remains.
    static func trialView(settings: BillingSettings, startedAt: Date?, endsAt: Date?, sessionsUsed: Int,
                          plan: SubscriptionView.PlanSummary, limits: SubscriptionView.Limits, now: Date) -> SubscriptionView {
        let endsAt = startedAt == nil ? nil : endsAt
        let daysRemaining: Int? = if let endsAt {
            max(0, Int((endsAt.timeIntervalSince(now) / 86_400).rounded(.up)))
        } else {
            settings.trialDays
        }
        let sessionsRemaining = settings.trialSessions.map { max(0, $0 - sessionsUsed) }
        let ended = endsAt.map { $0 <= now } ?? false
        let trial = SubscriptionView.Trial(startedAt: startedAt, endsAt: endsAt, daysRemaining: daysRemaining, sessionsUsed: sessionsUsed,
                                           sessionsLimit: settings.trialSessions, sessionsRemaining: sessionsRemaining)
        return SubscriptionView(status: ended ? .trialEnded : .trial, canCoach: !ended && sessionsRemaining != 0, plan: plan, trial: trial,
                                productId: nil, expiresAt: nil, renewsAt: nil, autoRenew: nil, limits: limits)
    }
}
