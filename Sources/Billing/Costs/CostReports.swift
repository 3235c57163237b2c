import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Reads the usage ledger for operators: `usage_daily` (kept by a trigger on `usage_records`) for sums, the
/// records themselves for models and one person's detail.
public struct CostReports: Sendable {
    let database: Database
    let plans: PlanStore
    let subscriptions: SubscriptionStore

    public init(database: Database) {
        self.database = database
        self.plans = PlanStore(database: database)
        self.subscriptions = SubscriptionStore(database: database)
    }

    private var logger: Logger { database.logger }

    /// The period a report covers, from a request's `days` query: 30 when absent, else 1 to 366.
    public static func days(query: String?) throws -> Int {
        guard let query else { return 30 }
        guard let days = Int(query), (1...366).contains(days) else { throw APIError.validation("days must be between 1 and 366.") }
        return days
    }

    public func report(tenantID: UUID, days: Int, topUsers: Int = 10) async throws -> CostReport {
        try await database.withTenant(tenantID) { [self] connection in
            let month = try await month(on: connection)
            let daily = try await self.days(days, on: connection)
            let modelRows = try await connection.query(
                """
                SELECT provider, model, sum(cost_micros)::bigint, count(*)::int FROM usage_records
                WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                GROUP BY provider, model ORDER BY 3 DESC, 1, 2
                """,
                logger: logger
            )
            var models: [CostReport.Model] = []
            for try await (provider, model, cost, turns) in modelRows.decode((String, String, Int64, Int).self) {
                models.append(.init(provider: provider, model: model, costMicros: cost, turns: turns))
            }
            let spenderRows = try await connection.query(
                """
                SELECT user_id, sum(cost_micros)::bigint, sum(turns)::int, sum(input_tokens + output_tokens)::bigint FROM usage_daily
                WHERE day >= date_trunc('month', now() AT TIME ZONE 'UTC')::date
                GROUP BY user_id ORDER BY 2 DESC, 4 DESC, 1 LIMIT \(topUsers)::integer
                """,
                logger: logger
            )
            var spenders: [CostReport.Spender] = []
            for try await (user, cost, turns, tokens) in spenderRows.decode((UUID, Int64, Int, Int64).self) {
                spenders.append(.init(userId: user, costMicros: cost, turns: turns, tokens: tokens))
            }
            return CostReport(month: month, days: daily, models: models, topUsers: spenders)
        }
    }

    /// The last `count` UTC days with usage, today included, newest first.
    public func days(tenantID: UUID, count: Int) async throws -> [CostReport.Day] {
        try await database.withTenant(tenantID) { [self] connection in try await days(count, on: connection) }
    }

    /// The same, in the caller's tenant transaction (the overview reads it beside its own figures).
    public func days(_ count: Int, on connection: PostgresConnection) async throws -> [CostReport.Day] {
        let rows = try await connection.query(
            """
            SELECT to_char(day, 'YYYY-MM-DD'), sum(cost_micros)::bigint, sum(turns)::int, count(*)::int,
                   sum(input_tokens)::bigint, sum(output_tokens)::bigint
            FROM usage_daily WHERE day > (now() AT TIME ZONE 'UTC')::date - \(count)::integer
            GROUP BY day ORDER BY day DESC
            """,
            logger: logger
        )
        var days: [CostReport.Day] = []
        for try await (day, cost, turns, users, input, output) in rows.decode((String, Int64, Int, Int, Int64, Int64).self) {
            days.append(.init(day: day, costMicros: cost, turns: turns, users: users, inputTokens: input, outputTokens: output))
        }
        return days
    }

    /// This calendar month (UTC) so far: cost, active people, and the cost per active person against the tenant's
    /// target. In the caller's tenant transaction (the overview reads it beside its own figures).
    public func month(on connection: PostgresConnection) async throws -> CostReport.Month {
        let settings = try await plans.settings(on: connection)
        let monthRows = try await connection.query(
            """
            SELECT to_char(date_trunc('month', now() AT TIME ZONE 'UTC'), 'YYYY-MM-DD'),
                   coalesce(sum(cost_micros), 0)::bigint, count(DISTINCT user_id)::int
            FROM usage_daily WHERE day >= date_trunc('month', now() AT TIME ZONE 'UTC')::date
            """,
            logger: logger
        )
        var month = CostReport.Month(month: "", costMicros: 0, activeUsers: 0, costPerUserMicros: 0,
                                     targetCostMicros: settings.targetCostMicros, overTarget: false)
        for try await (start, cost, users) in monthRows.decode((String, Int64, Int).self) {
            let perUser = users == 0 ? 0 : cost / Int64(users)
            month = .init(month: start, costMicros: cost, activeUsers: users, costPerUserMicros: perUser,
                          targetCostMicros: settings.targetCostMicros, overTarget: perUser > settings.targetCostMicros)
        }
        return month
    }

    /// `nil` when the tenant has no such user.
    public func usage(tenantID: UUID, userID: UUID, records limit: Int = 100) async throws -> UserUsage? {
        try await database.withTenant(tenantID) { [self] connection -> UserUsage? in
            guard let subscription = try await subscriptions.view(userID: userID, on: connection) else { return nil }
            let dayRows = try await connection.query(
                """
                SELECT to_char(day, 'YYYY-MM-DD'), cost_micros, turns, 1, input_tokens, output_tokens,
                       day >= date_trunc('month', now() AT TIME ZONE 'UTC')::date
                FROM usage_daily WHERE user_id = \(userID) AND day > (now() AT TIME ZONE 'UTC')::date - 31 ORDER BY day DESC
                """,
                logger: logger
            )
            var days: [CostReport.Day] = []
            var monthCost: Int64 = 0
            for try await (day, cost, turns, users, input, output, thisMonth) in dayRows.decode((String, Int64, Int, Int, Int64, Int64, Bool).self) {
                days.append(.init(day: day, costMicros: cost, turns: turns, users: users, inputTokens: input, outputTokens: output))
                if thisMonth { monthCost += cost }
            }
            let recordRows = try await connection.query(
                """
                SELECT id, created_at, thread_id, provider, model, input_tokens, output_tokens, tokens_estimated, cost_micros, ttft_ms,
                       total_ms, outcome
                FROM usage_records WHERE user_id = \(userID) ORDER BY created_at DESC, id LIMIT \(limit)
                """,
                logger: logger
            )
            var records: [UserUsage.Record] = []
            for try await (id, created, thread, provider, model, input, output, estimated, cost, ttft, total, outcome)
                in recordRows.decode((UUID, Date, UUID?, String, String, Int, Int, Bool, Int64, Int?, Int, String).self) {
                records.append(.init(id: id, createdAt: created, threadId: thread, provider: provider, model: model, inputTokens: input,
                                     outputTokens: output, estimated: estimated, costMicros: cost, timeToFirstTokenMs: ttft,
                                     totalMs: total, outcome: outcome))
            }
            return UserUsage(userId: userID, monthCostMicros: monthCost, days: days, records: records, subscription: subscription)
        }
    }
}
