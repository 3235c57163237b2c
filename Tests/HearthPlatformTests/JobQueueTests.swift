import Foundation
import HearthPlatform
import HearthTestSupport
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import Testing

/// The durable job queue against a real Postgres: several runners (standing in for server instances) share it.
@Suite struct JobQueueTests {
    struct Payload: Codable, Sendable { let number: Int }

    /// A handler that records what it ran and fails the first `failures` runs of every job.
    final class Recorder: JobHandler, Sendable {
        let kind: String
        let failures: Int
        private let runs = NIOLockedValueBox<[(id: Int64, attempt: Int, number: Int)]>([])

        init(kind: String = "test.record", failures: Int = 0) {
            self.kind = kind
            self.failures = failures
        }

        func run(_ job: Job) async throws {
            let payload = try job.decodePayload(Payload.self)
            let run = runs.withLockedValue { runs in
                runs.append((job.id, job.attempt, payload.number))
                return runs.count { $0.id == job.id }
            }
            try await Task.sleep(for: .milliseconds(2))
            if run <= failures { throw TestFailure(message: "failing attempt \(job.attempt)") }
        }

        var ranIDs: [Int64] { runs.withLockedValue { $0.map(\.id) } }
        var numbers: [Int] { runs.withLockedValue { $0.map(\.number) } }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func options(backoff: Duration = .milliseconds(10)) -> JobRunner.Options {
        var options = JobRunner.Options()
        options.pollInterval = .milliseconds(20)
        options.backoff = backoff
        return options
    }

    static func runner(_ store: JobStore, _ handlers: [any JobHandler], options: JobRunner.Options = options()) -> JobRunner {
        JobRunner(store: store, handlers: handlers, schedules: [], options: options, logger: TestLogs.quiet)
    }

    /// Runs `runners` until `body` returns, then stops them.
    static func running(_ runners: [JobRunner], _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for runner in runners { group.addTask { try await runner.run() } }
            defer { group.cancelAll() }
            try await body()
        }
    }

    @Test func enqueuedJobsRunExactlyOnceAcrossTwoInstances() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = JobStore(client: database.client, logger: database.logger)
            let recorder = Recorder()
            for number in 0..<40 { try await store.enqueue(NewJob(kind: recorder.kind, payload: Payload(number: number))) }
            var options = Self.options()
            options.workers = 3
            let runners = (0..<2).map { _ in Self.runner(store, [recorder], options: options) }
            try await Self.running(runners) { () async throws in
                #expect(try await hearth.eventually("jobs WHERE kind = 'test.record' AND state = 'done'", equals: 40))
            }
            #expect(Set(recorder.ranIDs).count == 40)
            #expect(recorder.ranIDs.count == 40)
            #expect(Set(recorder.numbers) == Set(0..<40))
            #expect(try await hearth.adminCount("jobs WHERE kind = 'test.record' AND attempts = 1 AND locked_by IS NULL AND finished_at IS NOT NULL") == 40)
        }
    }

    @Test func aFailedJobIsRetriedLaterWithBackoffUntilItSucceeds() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = JobStore(client: database.client, logger: database.logger)
            let flaky = Recorder(failures: 2)
            let id = try #require(try await store.enqueue(NewJob(kind: flaky.kind, payload: Payload(number: 7))))
            let runner = Self.runner(store, [flaky])
            try await Self.running([runner]) { () async throws in
                #expect(try await hearth.eventually("jobs WHERE id = \(id) AND state = 'done'"))
            }
            #expect(flaky.ranIDs == [id, id, id])
            #expect(try await hearth.adminCount("jobs WHERE id = \(id) AND attempts = 3 AND last_error = 'failing attempt 2'") == 1)

            // With a long backoff the retry is scheduled well in the future (about an hour, minus jitter).
            let slow = Recorder(kind: "test.slow", failures: 1)
            let later = try #require(try await store.enqueue(NewJob(kind: slow.kind, payload: Payload(number: 8))))
            let patient = Self.runner(store, [slow], options: Self.options(backoff: .seconds(3600)))
            try await Self.running([patient]) { () async throws in
                #expect(try await hearth.eventually("jobs WHERE id = \(later) AND state = 'pending' AND attempts = 1"))
            }
            #expect(try await hearth.adminCount("jobs WHERE id = \(later) AND run_at > now() + interval '29 minutes' AND run_at < now() + interval '61 minutes'") == 1)
        }
    }

    @Test func aJobThatKeepsFailingIsDeadVisibleAndCanBeRetried() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = JobStore(client: database.client, logger: database.logger)
            let broken = Recorder(failures: 3)
            let id = try #require(try await store.enqueue(NewJob(kind: broken.kind, payload: Payload(number: 1), maxAttempts: 3)))
            let unknown = try #require(try await store.enqueue(NewJob(kind: "test.nobody", payload: Payload(number: 2), maxAttempts: 1)))
            let runner = Self.runner(store, [broken])
            try await Self.running([runner]) { () async throws in
                #expect(try await hearth.eventually("jobs WHERE state = 'dead'", equals: 2))
                let dead = try await store.list(state: .dead, limit: 10)
                #expect(Set(dead.map(\.id)) == [id, unknown])
                #expect(dead.first { $0.id == id }?.lastError == "failing attempt 3")
                #expect(dead.first { $0.id == unknown }?.lastError == "no handler for job kind test.nobody on this instance")
                #expect(dead.allSatisfy { $0.attempts == $0.maxAttempts })

                // An operator retries it: a fresh set of attempts, and this time the fourth run succeeds.
                #expect(try await store.retry(id))
                #expect(try await store.retry(id) == false) // no longer dead
                #expect(try await hearth.eventually("jobs WHERE id = \(id) AND state = 'done' AND attempts = 1"))
            }
            #expect(broken.ranIDs.count == 4)
        }
    }

    @Test func aJobWhoseWorkerDiedIsClaimedAgainWhenItsLeaseRunsOut() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = JobStore(client: database.client, logger: database.logger)
            let recorder = Recorder()
            // Claimed by instances that died: one with attempts left, one on its last attempt, one still leased.
            try await hearth.admin(
                """
                INSERT INTO jobs (kind, payload, state, attempts, max_attempts, locked_by, locked_until) VALUES
                    ('test.record', '{"number": 1}', 'running', 1, 5, 'gone:1', now() - interval '1 second'),
                    ('test.record', '{"number": 2}', 'running', 5, 5, 'gone:1', now() - interval '1 second'),
                    ('test.record', '{"number": 3}', 'running', 1, 5, 'busy:2', now() + interval '1 hour')
                """
            )
            let runner = Self.runner(store, [recorder])
            try await Self.running([runner]) { () async throws in
                #expect(try await hearth.eventually("jobs WHERE state = 'done' AND attempts = 2 AND payload->>'number' = '1'"))
                #expect(try await hearth.eventually("jobs WHERE state = 'dead' AND payload->>'number' = '2' AND last_error LIKE '%lease expired%'"))
            }
            #expect(recorder.numbers == [1])
            #expect(try await hearth.adminCount("jobs WHERE state = 'running' AND locked_by = 'busy:2'") == 1)
        }
    }

    @Test func aScheduledRunIsEnqueuedByExactlyOneOfManyInstances() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let stores = (0..<4).map { _ in JobStore(client: database.client, logger: database.logger) }
            let schedule = JobSchedule(name: "test.hourly", every: .seconds(3600), kind: "test.record")
            for store in stores { try await store.register(schedule) }
            for round in 1...2 {
                let enqueued = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for store in stores { group.addTask { try await store.enqueueIfDue(schedule) } }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(enqueued == 1)
                #expect(try await hearth.adminCount("jobs WHERE kind = 'test.record'") == round)
                #expect(try await hearth.adminCount("job_schedules WHERE name = 'test.hourly' AND next_run_at > now() + interval '59 minutes'") == 1)
                #expect(try await stores[0].enqueueIfDue(schedule) == false) // not due again for an hour
                // An hour passes and the run was done.
                try await hearth.admin("UPDATE jobs SET state = 'done', finished_at = now()")
                try await hearth.admin("UPDATE job_schedules SET next_run_at = now() - interval '1 second'")
            }
        }
    }

    @Test func aDuplicatePendingJobIsNotEnqueuedAndATransactionsJobsRollBackWithIt() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = JobStore(client: database.client, logger: database.logger)
            let job = try NewJob(kind: "test.record", payload: Payload(number: 1), dedupeKey: "thread-1")
            #expect(try await store.enqueue(job) != nil)
            #expect(try await store.enqueue(job) == nil)
            struct Abort: Error {}
            await #expect(throws: Abort.self) {
                try await database.withPlatformTransaction { connection in
                    try await store.enqueue(NewJob(kind: "test.record", payload: Payload(number: 2)), on: connection)
                    throw Abort()
                }
            }
            #expect(try await hearth.adminCount("jobs") == 1)
        }
    }

    @Test func aGracefulShutdownLetsTheRunningJobFinishAndClaimsNoMore() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database async throws -> Void in
            let store = JobStore(client: database.client, logger: database.logger)
            let gate = Gate()
            let first = try #require(try await store.enqueue(NewJob(kind: gate.kind, payload: Payload(number: 1))))
            var options = Self.options()
            options.workers = 1
            let runner = Self.runner(store, [gate], options: options)
            let group = ServiceGroup(configuration: .init(services: [runner], logger: database.logger))
            let second = try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                await gate.started.first { _ in true }
                await group.triggerGracefulShutdown()
                // Due at once, enqueued only once shutting down has begun: a slow machine cannot let it be claimed
                // before, and it must not be claimed after.
                let second = try #require(try await store.enqueue(NewJob(kind: gate.kind, payload: Payload(number: 2))))
                try await Task.sleep(for: .milliseconds(500))
                gate.release()
                try await tasks.next()
                return second
            }
            #expect(try await hearth.adminCount("jobs WHERE id = \(first) AND state = 'done'") == 1)
            #expect(try await hearth.adminCount("jobs WHERE id = \(second) AND state = 'pending' AND attempts = 0") == 1)
        }
    }

    /// A handler that signals when it starts and waits to be released.
    final class Gate: JobHandler, Sendable {
        let kind = "test.gate"
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        private let waiting = NIOLockedValueBox<[CheckedContinuation<Void, Never>]>([])
        private let open = NIOLockedValueBox(false)

        func run(_ job: Job) async throws {
            startedContinuation.yield()
            await withCheckedContinuation { continuation in
                let resumeNow = open.withLockedValue { $0 }
                if resumeNow { continuation.resume() } else { waiting.withLockedValue { $0.append(continuation) } }
            }
        }

        func release() {
            open.withLockedValue { $0 = true }
            for continuation in waiting.withLockedValue({ $0 }) { continuation.resume() }
        }
    }
}
