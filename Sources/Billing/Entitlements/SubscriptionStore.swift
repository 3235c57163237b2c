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

    public func view(tenantID: UUID, userID: UUID, now: Date = Date()) async throws -> SubscriptionView {
        try await database.withTenant(tenantID) { connection in
            let settings = try await plans.settings(on: connection)
            let rows = try await connection.query(
                """
                SELECT s.status, s.plan_code, s.trial_started_at, s.trial_ends_at, cardinality(s.trial_threads), s.product_id,
                       s.expires_at, s.auto_renew
                FROM subscriptions s WHERE s.user_id = \(userID)
                """,
                logger: database.logger
            )
            var row: (String, String, Date, Date?, Int, String?, Date?, Bool?)?
            for try await found in rows.decode((String, String, Date, Date?, Int, String?, Date?, Bool?).self) { row = found }
            let planCode = row?.1 ?? Plan.trialCode
            guard let plan = try await plans.plans(on: connection).first(where: { $0.code == planCode }) else { throw APIError.internalError }
            let today = try await connection.query(
                """
                SELECT coalesce(sum(input_tokens + output_tokens), 0)::bigint FROM usage_daily
                WHERE user_id = \(userID) AND day = (now() AT TIME ZONE 'UTC')::date
                """,
                logger: database.logger
            )
            var tokensToday: Int64 = 0
            for try await value in today.decode(Int64.self) { tokensToday = value }
            let limits = SubscriptionView.Limits(requestsPerMinute: plan.requestsPerMinute, tokensPerDay: plan.tokensPerDay,
                                                 tokensUsedToday: tokensToday, concurrentStreams: plan.concurrentStreams)
            let summary = SubscriptionView.PlanSummary(code: plan.code, name: plan.name)
            guard let row, row.0 != "trial" else {
                return Self.trialView(settings: settings, startedAt: row?.2, endsAt: row?.3, sessionsUsed: row?.4 ?? 0,
                                      plan: summary, limits: limits, now: now)
            }
            let status = SubscriptionView.Status(rawValue: row.0) ?? .expired
            let entitled = status == .active || status == .gracePeriod
            return SubscriptionView(status: status, canCoach: entitled, plan: summary, trial: nil, productId: row.5, expiresAt: row.6,
                                    renewsAt: row.7 == true && entitled ? row.6 : nil, autoRenew: row.7, limits: limits)
        }
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
