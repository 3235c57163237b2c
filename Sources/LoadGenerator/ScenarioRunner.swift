import Synchronization

/// How much load: users, and when to stop (after a number of turns, after a duration, or whichever first).
public struct LoadShape: Sendable {
    public var users: Int
    public var turns: Int?
    public var duration: Duration?
    /// Pause between a user's turns (each pause drawn from 0.5×–1.5× this, so users do not march in step). With a
    /// think time, each user also starts after a pause drawn from 0–1.5× it: otherwise every user's first turn
    /// lands in the same instant, a burst no real population of users makes.
    public var thinkTime: Duration
    /// Users being set up at once (accounts and threads) before the measured part starts.
    public var setUpConcurrency = 32

    public init(users: Int, turns: Int? = nil, duration: Duration? = nil, thinkTime: Duration = .zero) {
        self.users = users
        self.turns = turns
        self.duration = duration
        self.thinkTime = thinkTime
    }

    /// Why this shape cannot run (`nil` when it can): a run bounded by nothing, or by zero, measures nothing.
    public var problem: String? {
        if users < 1 { return "--users must be at least 1." }
        if turns == nil && duration == nil { return "Bound the run with --turns or --duration (or both)." }
        if let turns, turns < 1 { return "--turns must be at least 1." }
        if let duration, duration <= .zero { return "--duration must be more than 0 seconds." }
        if thinkTime < .zero { return "--think-ms must be 0 or more." }
        return nil
    }
}

/// Runs a driver's users: all set up first, then every user takes turns until the shape says stop.
enum ScenarioRunner {
    /// Returns how long the measured part (the turns) took.
    static func run<Driver: TurnDriver>(_ driver: Driver, shape: LoadShape, recorder: LatencyRecorder,
                                        whileRunning: @escaping @Sendable () async -> Void = {}) async throws -> Duration {
        let users = try await setUp(driver, count: shape.users, concurrency: shape.setUpConcurrency)
        let budget = TurnBudget(limit: shape.turns, deadline: shape.duration.map { ContinuousClock.now + $0 })
        let started = ContinuousClock.now
        let sampler = Task { await whileRunning() }
        await withTaskGroup(of: Void.self) { group in
            for user in users {
                group.addTask {
                    if shape.thinkTime > .zero {
                        try? await Task.sleep(for: shape.thinkTime * Double.random(in: 0...1.5))
                    }
                    while budget.take() {
                        await driver.turn(user, recorder: recorder)
                        if shape.thinkTime > .zero {
                            try? await Task.sleep(for: shape.thinkTime * Double.random(in: 0.5...1.5))
                        }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        sampler.cancel()
        await sampler.value
        return elapsed
    }

    private static func setUp<Driver: TurnDriver>(_ driver: Driver, count: Int, concurrency: Int) async throws -> [Driver.User] {
        try await withThrowingTaskGroup(of: Driver.User.self) { group in
            var users: [Driver.User] = []
            users.reserveCapacity(count)
            for index in 0..<count {
                if index >= concurrency, let user = try await group.next() { users.append(user) }
                group.addTask { try await driver.setUp(user: index) }
            }
            for try await user in group { users.append(user) }
            return users
        }
    }
}

/// Hands out turns until the count or the deadline is reached.
final class TurnBudget: Sendable {
    private let remaining: Mutex<Int?>
    private let deadline: ContinuousClock.Instant?

    init(limit: Int?, deadline: ContinuousClock.Instant?) {
        remaining = Mutex(limit)
        self.deadline = deadline
    }

    func take() -> Bool {
        if let deadline, ContinuousClock.now >= deadline { return false }
        return remaining.withLock { remaining in
            guard let left = remaining else { return true }
            guard left > 0 else { return false }
            remaining = left - 1
            return true
        }
    }
}
