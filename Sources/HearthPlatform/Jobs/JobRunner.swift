import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Runs background jobs from the queue in Postgres, alongside the HTTP server, on every instance.
///
/// One loop claims as many due jobs as there are free workers and runs each in a child task; when idle it asks
/// again every `pollInterval` (one cheap indexed query). About once a second it also enqueues the recurring jobs
/// whose time has come and buries jobs whose worker died on their last attempt. A graceful shutdown stops
/// claiming and lets the jobs already running finish.
public struct JobRunner: Service {
    public struct Options: Sendable {
        public var workers = 2
        public var pollInterval: Duration = .seconds(1)
        /// How long a claimed job is reserved for its worker; a worker that dies loses it after this.
        public var lease: Duration = .seconds(300)
        /// The first retry waits about this long, each next one twice as long (with jitter), up to `maximumBackoff`.
        public var backoff: Duration = .seconds(5)
        public var maximumBackoff: Duration = .seconds(3600)
        public var keepDone: Duration = .seconds(86_400)
        public var keepDead: Duration = .seconds(30 * 86_400)

        public init() {}
    }

    /// The runner's own recurring job: deleting finished jobs after `keepDone` / `keepDead`.
    static let pruneKind = "jobs.prune"

    let store: JobStore
    let handlers: [String: any JobHandler]
    let schedules: [JobSchedule]
    let options: Options
    let logger: Logger
    /// Names this instance in `jobs.locked_by`.
    let worker: String

    public init(store: JobStore, handlers: [any JobHandler], schedules: [JobSchedule], options: Options, logger: Logger) {
        self.store = store
        self.options = options
        self.logger = logger
        self.worker = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(Secrets.randomHex(byteCount: 4))"
        let prune = Prune(store: store, keepDone: options.keepDone, keepDead: options.keepDead)
        self.handlers = Dictionary((handlers + [prune]).map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        self.schedules = schedules + [JobSchedule(name: Self.pruneKind, every: .seconds(3600), kind: Self.pruneKind)]
    }

    public func run() async throws {
        for schedule in schedules { try await store.register(schedule) }
        let stopping = NIOLockedValueBox(false)
        await withGracefulShutdownHandler {
            await dispatch(until: stopping)
        } onGracefulShutdown: {
            stopping.withLockedValue { $0 = true }
        }
    }

    private func dispatch(until stopping: NIOLockedValueBox<Bool>) async {
        let running = NIOLockedValueBox(0)
        var lastMaintenance = ContinuousClock.now - .seconds(1)
        await withDiscardingTaskGroup { group in
            while !stopping.withLockedValue({ $0 }), !Task.isCancelled {
                if ContinuousClock.now - lastMaintenance >= .seconds(1) {
                    await maintain()
                    lastMaintenance = .now
                }
                let free = options.workers - running.withLockedValue { $0 }
                var claimed = 0
                if free > 0 {
                    do {
                        for job in try await store.claim(worker: worker, lease: options.lease, limit: free) {
                            running.withLockedValue { $0 += 1 }
                            claimed += 1
                            group.addTask {
                                await execute(job)
                                running.withLockedValue { $0 -= 1 }
                            }
                        }
                    } catch {
                        logger.error("claiming jobs failed", metadata: ["error": .error(error)])
                    }
                }
                // A full batch suggests more are waiting: ask again at once rather than after a poll.
                if claimed == 0 || claimed < free { try? await Task.sleep(for: options.pollInterval) }
            }
        }
    }

    /// Enqueues due recurring jobs; buries jobs whose worker died on their last attempt.
    private func maintain() async {
        do {
            for schedule in schedules { try await store.enqueueIfDue(schedule) }
            try await store.buryExpired()
        } catch {
            logger.error("scheduling jobs failed", metadata: ["error": .error(error)])
        }
    }

    /// Runs one claimed job and records how it went. Store failures are logged: the lease brings the job back.
    func execute(_ job: Job) async {
        let metadata: Logger.Metadata = ["job_id": .stringConvertible(job.id), "job_kind": .string(job.kind), "attempt": .stringConvertible(job.attempt)]
        do {
            guard let handler = handlers[job.kind] else { throw UnknownKind(kind: job.kind) }
            try await handler.run(job)
            try await store.complete(job, worker: worker)
            Counter(label: "hearth_jobs_total", dimensions: [("kind", job.kind), ("outcome", "done")]).increment()
        } catch {
            let retryAt = job.attempt < job.maxAttempts ? Date.now.addingTimeInterval(backoff(after: job.attempt)) : nil
            let outcome = retryAt == nil ? "dead" : "retry"
            logger.warning("job failed", metadata: metadata.merging(["error": .error(error), "outcome": .string(outcome)]) { $1 })
            Counter(label: "hearth_jobs_total", dimensions: [("kind", job.kind), ("outcome", outcome)]).increment()
            do {
                try await store.fail(job, worker: worker, error: String(Logger.MetadataValue.error(error).description.prefix(500)), retryAt: retryAt)
            } catch {
                logger.error("recording a job failure failed", metadata: metadata.merging(["error": .error(error)]) { $1 })
            }
        }
    }

    /// Seconds before the retry after failed attempt `attempt`: exponential, capped, with jitter so that jobs
    /// failing together do not all come back together.
    func backoff(after attempt: Int) -> TimeInterval {
        let exponential = options.backoff.seconds * pow(2, Double(min(attempt - 1, 30)))
        return min(exponential, options.maximumBackoff.seconds) * Double.random(in: 0.5...1)
    }

    struct UnknownKind: Error, CustomStringConvertible {
        let kind: String
        var description: String { "no handler for job kind \(kind) on this instance" }
    }

    struct Prune: JobHandler {
        let kind = JobRunner.pruneKind
        let store: JobStore
        let keepDone: Duration
        let keepDead: Duration

        func run(_ job: Job) async throws {
            _ = try await store.prune(done: keepDone, dead: keepDead)
        }
    }
}
