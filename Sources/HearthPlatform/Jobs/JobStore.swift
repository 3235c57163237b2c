import Foundation
import Logging
import PostgresNIO

/// Owns `jobs` and `job_schedules` (migrations/0007_jobs.sql).
public struct JobStore: Sendable {
    public enum State: String, Sendable, CaseIterable {
        case pending, running, done, dead
    }

    /// A job as operators see it (never its payload's meaning, only its shape).
    public struct Summary: Sendable {
        public let id: Int64
        public let kind: String
        public let tenantID: UUID?
        public let state: State
        public let attempts: Int
        public let maxAttempts: Int
        public let runAt: Date
        public let lastError: String?
    }

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Enqueues in the caller's transaction, so the job exists exactly when what caused it does. Returns the
    /// job's id, or nil when a pending job with the same kind and dedupe key already exists.
    @discardableResult
    public func enqueue(_ job: NewJob, on connection: PostgresConnection) async throws -> Int64? {
        try await Self.enqueue(job, logger: logger) { try await connection.query($0, logger: $1).collect() }
    }

    /// Enqueues on its own.
    @discardableResult
    public func enqueue(_ job: NewJob) async throws -> Int64? {
        try await Self.enqueue(job, logger: logger) { try await client.liveRows($0, logger: $1) }
    }

    private static func enqueue(
        _ job: NewJob, logger: Logger, _ run: (PostgresQuery, Logger) async throws -> [PostgresRow]
    ) async throws -> Int64? {
        let rows = try await run(
            """
            INSERT INTO jobs (kind, tenant_id, payload, dedupe_key, run_at, max_attempts)
            VALUES (\(job.kind), \(job.tenantID), \(job.payload)::jsonb, \(job.dedupeKey), coalesce(\(job.runAt), now()), \(job.maxAttempts))
            ON CONFLICT (kind, dedupe_key) WHERE dedupe_key IS NOT NULL AND state = 'pending' DO NOTHING
            RETURNING id
            """,
            logger
        )
        return try rows.decode(Int64.self).first
    }

    /// Leases up to `limit` jobs that are due — and jobs whose lease ran out (their worker died) — to `worker`.
    func claim(worker: String, lease: Duration, limit: Int) async throws -> [Job] {
        let rows = try await client.liveRows(
            """
            UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = \(worker),
                            locked_until = now() + make_interval(secs => \(lease.seconds))
            WHERE id IN (
                SELECT id FROM jobs
                WHERE (state = 'pending' AND run_at <= now())
                   OR (state = 'running' AND locked_until < now() AND attempts < max_attempts)
                ORDER BY run_at, id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            RETURNING id, kind, tenant_id, payload::text, attempts, max_attempts
            """,
            logger: logger
        )
        var jobs: [Job] = []
        for (id, kind, tenant, payload, attempt, maxAttempts) in try rows.decode((Int64, String, UUID?, String, Int, Int).self) {
            jobs.append(Job(id: id, kind: kind, tenantID: tenant, payload: payload, attempt: attempt, maxAttempts: maxAttempts))
        }
        return jobs
    }

    func complete(_ job: Job, worker: String) async throws {
        try await client.liveRows(
            """
            UPDATE jobs SET state = 'done', finished_at = now(), locked_by = NULL, locked_until = NULL
            WHERE id = \(job.id) AND state = 'running' AND locked_by = \(worker)
            """,
            logger: logger
        )
    }

    /// Records a failed run: pending again at `retryAt`, or dead when that is nil.
    func fail(_ job: Job, worker: String, error: String, retryAt: Date?) async throws {
        do {
            try await client.liveRows(
                """
                UPDATE jobs SET state = \(retryAt == nil ? State.dead.rawValue : State.pending.rawValue),
                                run_at = coalesce(\(retryAt), run_at), last_error = \(error),
                                finished_at = CASE WHEN \(retryAt)::timestamptz IS NULL THEN now() END,
                                locked_by = NULL, locked_until = NULL
                WHERE id = \(job.id) AND state = 'running' AND locked_by = \(worker)
                """,
                logger: logger
            )
        } catch let failure as PSQLError where failure.isUniqueViolation {
            // A job with the same dedupe key was enqueued while this one ran; that one will do the work.
            try await client.liveRows(
                """
                UPDATE jobs SET state = 'done', finished_at = now(), last_error = \(error + " (superseded by a newer pending job)"),
                                locked_by = NULL, locked_until = NULL
                WHERE id = \(job.id) AND state = 'running' AND locked_by = \(worker)
                """,
                logger: logger
            )
        }
    }

    /// Jobs whose worker died on their last allowed attempt: dead, rather than leased again.
    func buryExpired() async throws {
        try await client.liveRows(
            """
            UPDATE jobs SET state = 'dead', finished_at = now(), locked_by = NULL, locked_until = NULL,
                            last_error = concat_ws('; ', last_error, 'lease expired on the last attempt')
            WHERE state = 'running' AND locked_until < now() AND attempts >= max_attempts
            """,
            logger: logger
        )
    }

    /// Makes sure the schedule has a row (a new schedule is due at once).
    package func register(_ schedule: JobSchedule) async throws {
        try await client.liveRows(
            "INSERT INTO job_schedules (name, next_run_at) VALUES (\(schedule.name), now()) ON CONFLICT (name) DO NOTHING",
            logger: logger
        )
    }

    /// Enqueues the schedule's job if its time has come, moving its next run forward in the same statement:
    /// of several instances ticking at once, exactly one does it. Returns whether this call enqueued.
    @discardableResult
    package func enqueueIfDue(_ schedule: JobSchedule) async throws -> Bool {
        let rows = try await client.liveRows(
            """
            WITH due AS (
                UPDATE job_schedules SET next_run_at = now() + make_interval(secs => \(schedule.interval.seconds))
                WHERE name = \(schedule.name) AND next_run_at <= now()
                RETURNING name
            )
            INSERT INTO jobs (kind, dedupe_key) SELECT \(schedule.kind), name FROM due
            ON CONFLICT (kind, dedupe_key) WHERE dedupe_key IS NOT NULL AND state = 'pending' DO NOTHING
            RETURNING id
            """,
            logger: logger
        )
        return rows.count == 1
    }

    /// Deletes finished jobs: done ones after `done`, dead ones after `dead`. Returns how many.
    func prune(done: Duration, dead: Duration) async throws -> Int {
        let rows = try await client.liveRows(
            """
            DELETE FROM jobs
            WHERE (state = 'done' AND finished_at < now() - make_interval(secs => \(done.seconds)))
               OR (state = 'dead' AND finished_at < now() - make_interval(secs => \(dead.seconds)))
            RETURNING 1
            """,
            logger: logger
        )
        return rows.count
    }

    /// The newest jobs, optionally in one state.
    public func list(state: State?, limit: Int) async throws -> [Summary] {
        let rows = try await client.liveRows(
            """
            SELECT id, kind, tenant_id, state, attempts, max_attempts, run_at, last_error FROM jobs
            WHERE \(state?.rawValue)::text IS NULL OR state = \(state?.rawValue)
            ORDER BY id DESC LIMIT \(limit)
            """,
            logger: logger
        )
        var jobs: [Summary] = []
        for (id, kind, tenant, state, attempts, maxAttempts, runAt, error)
            in try rows.decode((Int64, String, UUID?, String, Int, Int, Date, String?).self) {
            jobs.append(Summary(id: id, kind: kind, tenantID: tenant, state: State(rawValue: state) ?? .pending,
                                attempts: attempts, maxAttempts: maxAttempts, runAt: runAt, lastError: error))
        }
        return jobs
    }

    /// Gives a dead job a fresh set of attempts, now. False when there is no such dead job.
    public func retry(_ id: Int64) async throws -> Bool {
        let rows = try await client.liveRows(
            """
            UPDATE jobs SET state = 'pending', attempts = 0, run_at = now(), finished_at = NULL
            WHERE id = \(id) AND state = 'dead'
            RETURNING 1
            """,
            logger: logger
        )
        return rows.count == 1
    }
}

extension Duration {
    /// In seconds, as a floating-point number (for `make_interval(secs => …)`, reports and rates).
    public var seconds: Double {
        self / .seconds(1)
    }
}
