import Foundation
import HearthPlatform
import PostgresNIO

/// Who is being refused by a limit right now (the console's "limited now"): request windows over their quota
/// that have not ended (HearthPlatform's `rate_windows`, read here; the tenant's requests per second as the sum
/// of its slots, migration 0039), and people at their plan's tokens per day.
public struct LimitedNow: Sendable, Equatable {
    public let limit: String
    /// A person's id, `address` (a client address, kept only as a hash), or `tenant` (all of the tenant's requests).
    public let subject: String
    public let used: Int64
    public let quota: Int64
    public let resetSeconds: Int

    public static func read(tenantID: UUID, database: Database) async throws -> [LimitedNow] {
        try await database.withTenant(tenantID) { connection in
            let rows = try await connection.query(
                """
                SELECT name, CASE WHEN name IN ('signups-per-hour', 'logins-per-minute') THEN 'address' ELSE subject END,
                       used, quota, greatest(1, ceil(extract(epoch FROM window_start - now()) + window_seconds))::integer
                FROM rate_windows
                WHERE name <> 'tenant-requests-per-second' AND used > quota
                  AND window_start + make_interval(secs => window_seconds) > now()
                UNION ALL
                SELECT name, 'tenant', sum(used)::bigint, max(quota), 1
                FROM rate_windows
                WHERE name = 'tenant-requests-per-second' AND window_start + make_interval(secs => window_seconds) > now()
                GROUP BY name HAVING sum(used) > max(quota)
                UNION ALL
                SELECT 'tokens-per-day', d.user_id::text, d.input_tokens + d.output_tokens, p.tokens_per_day,
                       ceil(extract(epoch FROM ((d.day + 1)::timestamp AT TIME ZONE 'UTC') - now()))::integer
                FROM usage_daily d
                LEFT JOIN subscriptions s ON s.user_id = d.user_id
                JOIN billing_plans p ON p.tenant_id = d.tenant_id AND p.code = coalesce(s.plan_code, \(Plan.trialCode))
                WHERE d.day = (now() AT TIME ZONE 'UTC')::date AND d.input_tokens + d.output_tokens >= p.tokens_per_day
                ORDER BY 1, 2
                LIMIT 200
                """,
                logger: database.logger
            )
            var limited: [LimitedNow] = []
            for try await (limit, subject, used, quota, reset) in rows.decode((String, String, Int64, Int64, Int).self) {
                limited.append(LimitedNow(limit: limit, subject: subject, used: used, quota: quota, resetSeconds: reset))
            }
            return limited
        }
    }
}
