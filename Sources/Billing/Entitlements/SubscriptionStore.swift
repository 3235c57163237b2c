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
        try await database.withTenant(tenantID) { [self] connection in
            try await view(userID: userID, on: connection, now: now)
        }
    }

    /// The same, in the connection's tenant transaction: the settings, then the person's subscription (none before
    /// their first coached message: the trial plan), plan and today's tokens in one statement.
    func view(userID: UUID, on connection: PostgresConnection, now: Date = Date()) async throws -> SubscriptionView? {
        let settings = try await plans.settings(on: connection)
        let rows = try await connection.query(
            """
            SELECT hearth_subscription_status(s.status, s.expires_at, s.grace_ends_at), s.trial_started_at, s.trial_ends_at, coalesce(cardinality(s.trial_threads), 0), s.product_id, s.expires_at,
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
                return Self.trialView(userID: userID, settings: settings, startedAt: startedAt, endsAt: endsAt, sessionsUsed: sessionsUsed,
                                      plan: plan, limits: limits, now: now)
            }
            let current = SubscriptionView.Status(rawValue: status) ?? .expired
            let entitled = current == .active || current == .gracePeriod
            return SubscriptionView(status: current, canCoach: entitled, appAccountToken: userID, plan: plan, trial: nil, productId: productID, expiresAt: expiresAt,
                                    renewsAt: autoRenew == true && entitled ? expiresAt : nil, autoRenew: autoRenew, limits: limits)
        }
        return nil
    }

    /// A person in (or past) the free trial; before their first coached message the trial has not started and
    /// all of it remains.
    static func trialView(userID: UUID, settings: BillingSettings, startedAt: Date?, endsAt: Date?, sessionsUsed: Int,
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
        return SubscriptionView(status: ended ? .trialEnded : .trial, canCoach: !ended && sessionsRemaining != 0, appAccountToken: userID,
                                plan: plan, trial: trial,
                                productId: nil, expiresAt: nil, renewsAt: nil, autoRenew: nil, limits: limits)
    }

    public enum ApplyOutcome: String, Sendable {
        case applied
        /// Older than what the person's subscription already holds: nothing changed.
        case stale
    }

    /// Writes verified App Store data into the person's subscription, in the caller's tenant transaction. The
    /// newest signed data wins: for the same purchase an older signedDate changes nothing; another purchase
    /// replaces theirs unless theirs is newer and still entitles them. The purchase leaves anyone else who held it
    /// (a restore on a new account takes it along). Throws 422 `unknown_product` for a product no plan lists.
    func apply(_ entitlement: Entitlement, userID: UUID, on connection: PostgresConnection) async throws -> ApplyOutcome {
        let logger = database.logger
        // The admission's lock: a turn admitted meanwhile sees the subscription before or after, never half of it.
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('hearth-admit:' || \(userID.uuidString.lowercased()), 0))",
                                   logger: logger)
        let current = try await connection.query(
            """
            SELECT original_transaction_id, signed_at, hearth_subscription_status(status, expires_at, grace_ends_at) IN ('active', 'grace_period')
            FROM subscriptions WHERE user_id = \(userID)
            """,
            logger: logger
        )
        for try await (held, signedAt, entitled) in current.decode((String?, Date?, Bool).self) {
            if let signedAt, signedAt > entitlement.signedAt, held == entitlement.originalTransactionId || entitled {
                return .stale
            }
        }
        let plans = try await connection.query(
            "SELECT code FROM billing_plans WHERE \(entitlement.productId) = ANY (product_ids) ORDER BY code LIMIT 1", logger: logger
        )
        var planCode: String?
        for try await code in plans.decode(String.self) { planCode = code }
        guard let planCode else {
            throw APIError(.unprocessableContent, code: "unknown_product",
                           message: "No plan lists the App Store product \(entitlement.productId): add it to a plan's productIds.")
        }
        try await connection.query(
            """
            UPDATE subscriptions SET status = 'expired', plan_code = \(Plan.trialCode), product_id = NULL, original_transaction_id = NULL,
                   expires_at = NULL, grace_ends_at = NULL, auto_renew = NULL, updated_at = now()
            WHERE original_transaction_id = \(entitlement.originalTransactionId) AND user_id <> \(userID)
            """,
            logger: logger
        )
        try await connection.query(
            """
            INSERT INTO subscriptions AS s (tenant_id, user_id, status, plan_code, trial_ends_at, product_id, original_transaction_id,
                                            expires_at, grace_ends_at, auto_renew, environment, signed_at)
            VALUES (hearth_tenant_id(), \(userID), \(entitlement.status.rawValue), \(planCode), now(), \(entitlement.productId),
                    \(entitlement.originalTransactionId), \(entitlement.expiresAt), \(entitlement.graceEndsAt), \(entitlement.autoRenew),
                    \(entitlement.environment), \(entitlement.signedAt))
            ON CONFLICT (user_id) DO UPDATE SET
                status = excluded.status, plan_code = excluded.plan_code, product_id = excluded.product_id,
                original_transaction_id = excluded.original_transaction_id, expires_at = excluded.expires_at,
                grace_ends_at = excluded.grace_ends_at, auto_renew = excluded.auto_renew, environment = excluded.environment,
                signed_at = excluded.signed_at, trial_ends_at = least(s.trial_ends_at, now()), updated_at = now()
            """,
            logger: logger
        )
        return .applied
    }

    /// Who a purchase entitles: the person it was last verified for, else the person whose appAccountToken the
    /// app set at purchase (their user id). `nil` when neither is a person of this tenant.
    func holder(originalTransactionId: String, appAccountToken: String?, on connection: PostgresConnection) async throws -> UUID? {
        let token = appAccountToken.flatMap(UUID.init(uuidString:))
        let rows = try await connection.query(
            """
            SELECT user_id FROM subscriptions WHERE original_transaction_id = \(originalTransactionId)
            UNION ALL
            SELECT id FROM users WHERE id = \(token)
            LIMIT 1
            """,
            logger: database.logger
        )
        for try await userID in rows.decode(UUID.self) {
            return userID
        }
        return nil
    }
}

