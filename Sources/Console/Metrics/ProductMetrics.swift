import Billing
import Foundation
import HearthPlatform
import PostgresNIO

/// The overview's product metrics (FR41; the Coach App PRD's dashboard KPIs), read for operators.
///
/// This is the console's one reporting read across other features' tables, and it only reads: `users`,
/// `usage_daily` and `usage_records` (a record per turn that reached a provider, answered or not: activity,
/// sessions, cost), `context_profiles`
/// (whether one is set, never its sealed content), `persona_links` (who shared) and `crisis_events` (counts by
/// kind). Everything is counted inside the tenant's own transaction, so row-level security scopes it; the
/// platform-wide overview adds tenants' counts (users belong to one tenant, so sums of distinct people are exact).
/// The period is the last ``periodDays`` UTC days, today included, for every figure alike.
public struct ProductMetrics: Sendable {
    /// Sums that the overview's rates are built from; adding two tenants' counts gives their combined figures.
    public struct Counts: Sendable, Equatable {
        public var users = 0
        public var newUsers = 0
        /// People with a turn in the period (the "monthly" actives of DAU/MAU).
        public var activeUsers = 0
        /// People who signed up 8 to 35 days ago (their first week is over), and those of them with a turn on
        /// days 1 to 7 after their sign-up day.
        public var weekOneCohort = 0
        public var weekOneRetained = 0
        /// Coaching sessions that started in the period: a thread's turns less than Memory's idle time apart
        /// (30 minutes by default), and those reaching three exchanges.
        public var sessions = 0
        public var deepSessions = 0
        /// People active on two or more days of the period, and those of them with a context profile set.
        public var returningUsers = 0
        public var returningWithContext = 0
        /// Active people who made a persona link (their own or a share) in the period.
        public var sharers = 0
        public var crisisEvents: [String: Int] = [:]
        public var monthCostMicros: Int64 = 0
        public var monthActiveUsers = 0
        /// Per UTC day ("YYYY-MM-DD"): daily actives and cost.
        public var days: [String: Day] = [:]
        /// Per weekly sign-up cohort (the Monday, "YYYY-MM-DD"): its size and week-1 retained people.
        public var cohorts: [String: Cohort] = [:]

        /// Daily actives summed over the period's days (their mean is DAU).
        public var activeUserDays: Int { days.values.reduce(0) { $0 + $1.actives } }

        public struct Day: Sendable, Equatable {
            public var actives = 0
            public var costMicros: Int64 = 0
        }

        public struct Cohort: Sendable, Equatable {
            public var size = 0
            public var retained = 0
        }

        public init() {}

        public static func + (lhs: Counts, rhs: Counts) -> Counts {
            var sum = lhs
            sum.users += rhs.users
            sum.newUsers += rhs.newUsers
            sum.activeUsers += rhs.activeUsers
            sum.weekOneCohort += rhs.weekOneCohort
            sum.weekOneRetained += rhs.weekOneRetained
            sum.sessions += rhs.sessions
            sum.deepSessions += rhs.deepSessions
            sum.returningUsers += rhs.returningUsers
            sum.returningWithContext += rhs.returningWithContext
            sum.sharers += rhs.sharers
            sum.crisisEvents.merge(rhs.crisisEvents, uniquingKeysWith: +)
            sum.monthCostMicros += rhs.monthCostMicros
            sum.monthActiveUsers += rhs.monthActiveUsers
            sum.days.merge(rhs.days) { Day(actives: $0.actives + $1.actives, costMicros: $0.costMicros + $1.costMicros) }
            sum.cohorts.merge(rhs.cohorts) { Cohort(size: $0.size + $1.size, retained: $0.retained + $1.retained) }
            return sum
        }
    }

    /// The period the rates cover: four weeks, so sessions per week is a whole number of weeks.
    public static let periodDays = 28
    /// Weekly sign-up cohorts shown: the last is the newest week whose members' first week is over.
    public static let cohortWeeks = 8

    let database: Database
    let costs: CostReports
    /// Memory's idle time, which ends a session (`HEARTH_MEMORY_IDLE_MINUTES`).
    let sessionIdle: Duration

    public init(database: Database, sessionIdle: Duration) {
        self.database = database
        self.costs = CostReports(database: database)
        self.sessionIdle = sessionIdle
    }

    /// The period's first instant: midnight UTC, ``periodDays`` - 1 days before today's.
    static func periodStart(now: Date = Date()) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar.date(byAdding: .day, value: -(periodDays - 1), to: calendar.startOfDay(for: now))!
    }

    /// The tenant's counts and its cost target (micro-dollars per active person per month).
    public func counts(tenantID: UUID) async throws -> (counts: Counts, targetCostMicros: Int64) {
        try await database.withTenant(tenantID) { [self] connection in
            var counts = Counts()
            let since = Self.periodStart()
            try await readTotals(into: &counts, since: since, on: connection)
            try await readSessions(into: &counts, since: since, on: connection)
            try await readSeries(into: &counts, on: connection)
            let month = try await costs.month(on: connection)
            counts.monthCostMicros = month.costMicros
            counts.monthActiveUsers = month.activeUsers
            return (counts, month.targetCostMicros)
        }
    }

    private var logger: Logger { database.logger }

    private func readTotals(into counts: inout Counts, since: Date, on connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day),
            active AS (
                SELECT user_id, count(*) AS days FROM usage_daily WHERE day >= (\(since)::timestamptz AT TIME ZONE 'UTC')::date
                GROUP BY user_id
            ),
            cohort AS (
                SELECT u.id, (u.created_at AT TIME ZONE 'UTC')::date AS joined FROM users u, today
                WHERE (u.created_at AT TIME ZONE 'UTC')::date BETWEEN today.day - 35 AND today.day - 8
            )
            SELECT
                (SELECT count(*) FROM users)::int,
                (SELECT count(*) FROM users WHERE created_at >= \(since))::int,
                (SELECT count(*) FROM active)::int,
                (SELECT count(*) FROM cohort)::int,
                (SELECT count(*) FROM cohort c WHERE EXISTS (
                    SELECT 1 FROM usage_daily d WHERE d.user_id = c.id AND d.day BETWEEN c.joined + 1 AND c.joined + 7))::int,
                (SELECT count(*) FROM active WHERE days >= 2)::int,
                (SELECT count(*) FROM active a JOIN context_profiles p ON p.user_id = a.user_id
                 WHERE a.days >= 2 AND p.profile_ciphertext IS NOT NULL)::int,
                (SELECT count(DISTINCT l.user_id) FROM persona_links l JOIN active a ON a.user_id = l.user_id
                 WHERE l.created_at >= \(since))::int
            """,
            logger: logger
        )
        for try await (users, newUsers, active, cohort, retained, returning, withContext, sharers)
            in rows.decode((Int, Int, Int, Int, Int, Int, Int, Int).self) {
            counts.users = users
            counts.newUsers = newUsers
            counts.activeUsers = active
            counts.weekOneCohort = cohort
            counts.weekOneRetained = retained
            counts.returningUsers = returning
            counts.returningWithContext = withContext
            counts.sharers = sharers
        }
        let crisis = try await connection.query(
            """
            SELECT kind, count(*)::int FROM crisis_events WHERE created_at >= \(since) GROUP BY kind
            """,
            logger: logger
        )
        for try await (kind, count) in crisis.decode((String, Int).self) { counts.crisisEvents[kind] = count }
    }

    /// Sessions from the usage records' times: a thread's turns split where Memory's idle time passed between
    /// two; a session's depth is its distinct answers (a retried answer counts once). Turns from an idle time
    /// before the period are read too, so a session already under way when the period began is not counted as
    /// starting in it.
    private func readSessions(into counts: inout Counts, since: Date, on connection: PostgresConnection) async throws {
        let idle = Int(sessionIdle.components.seconds)
        let rows = try await connection.query(
            """
            SELECT count(*)::int, count(*) FILTER (WHERE exchanges >= 3)::int FROM (
                SELECT min(created_at) AS started, count(DISTINCT message_id) AS exchanges FROM (
                    SELECT thread_id, message_id, created_at,
                           sum(starts) OVER (PARTITION BY thread_id ORDER BY created_at, id) AS session FROM (
                        SELECT id, thread_id, message_id, created_at,
                               CASE WHEN created_at - lag(created_at) OVER (PARTITION BY thread_id ORDER BY created_at, id)
                                         < \(idle) * interval '1 second' THEN 0 ELSE 1 END AS starts
                        FROM usage_records
                        WHERE created_at >= \(since)::timestamptz - \(idle) * interval '1 second' AND thread_id IS NOT NULL
                    ) turns
                ) numbered
                GROUP BY thread_id, session
            ) sessions
            WHERE started >= \(since)
            """,
            logger: logger
        )
        for try await (sessions, deep) in rows.decode((Int, Int).self) {
            counts.sessions = sessions
            counts.deepSessions = deep
        }
    }

    /// Daily actives and cost per day over the period (the costs page's own per-day read), and week-1 retention per
    /// weekly sign-up cohort.
    private func readSeries(into counts: inout Counts, on connection: PostgresConnection) async throws {
        for day in try await costs.days(Self.periodDays, on: connection) {
            counts.days[day.day] = .init(actives: day.users, costMicros: day.costMicros)
        }
        // A cohort is shown once its last member's first week is over: its Monday at least 14 days ago.
        let cohorts = try await connection.query(
            """
            WITH bounds AS (SELECT date_trunc('week', ((now() AT TIME ZONE 'UTC')::date - 14)::timestamp)::date AS last_week),
            joined AS (
                SELECT id, (created_at AT TIME ZONE 'UTC')::date AS day FROM users, bounds
                WHERE (created_at AT TIME ZONE 'UTC')::date >= bounds.last_week - 7 * \(Self.cohortWeeks - 1)::integer
                  AND (created_at AT TIME ZONE 'UTC')::date < bounds.last_week + 7
            )
            SELECT to_char(date_trunc('week', j.day::timestamp), 'YYYY-MM-DD'), count(*)::int,
                   count(*) FILTER (WHERE EXISTS (
                       SELECT 1 FROM usage_daily d WHERE d.user_id = j.id AND d.day BETWEEN j.day + 1 AND j.day + 7))::int
            FROM joined j GROUP BY 1
            """,
            logger: logger
        )
        for try await (week, size, retained) in cohorts.decode((String, Int, Int).self) {
            counts.cohorts[week] = .init(size: size, retained: retained)
        }
    }
}
