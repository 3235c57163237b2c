import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// Runs a connection's requests on the event loop of that connection (a Swift task executor per loop).
///
/// Without it, a connection's task and a request's code run on Swift's global executor, a pool of threads apart
/// from NIO's event loops, and every hand-over between the two (a database reply, a provider's bytes, a frame
/// written to the client) wakes another thread: `strace` counted 428 such wake-ups over 200 one-stream turns
/// (decision 0022). On its connection's loop, the turn's own work, its stream to the client and its provider
/// connection (``ProviderTransport`` opens and picks connections on the caller's loop) hand over in the same
/// thread; only the database's replies, on whichever loop the pool's connection lives, still cross.
public final class EventLoopExecutors: Sendable {
    private let executors: [ObjectIdentifier: EventLoopTaskExecutor]

    public init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        var executors: [ObjectIdentifier: EventLoopTaskExecutor] = [:]
        for loop in group.makeIterator() {
            executors[ObjectIdentifier(loop)] = EventLoopTaskExecutor(loop)
        }
        self.executors = executors
    }

    /// The executor of `loop`; `nil` for a loop of another group (embedded channels in tests).
    public func executor(for loop: any EventLoop) -> EventLoopTaskExecutor? {
        executors[ObjectIdentifier(loop)]
    }
}

/// A task executor that runs its jobs on one event loop.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The executor of the request being handled. Structured child tasks inherit a task executor preference, but
    /// a `Task {}` does not: one that should run where its request does asks for this one
    /// (`Task(executorPreference: EventLoopTaskExecutor.current)`).
    @TaskLocal public static var current: EventLoopTaskExecutor?

    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    /// Runs `body` on this executor's loop, naming this executor as ``current`` for the tasks it starts.
    public func run<T>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$current.withValue(self) {
            try await withTaskExecutorPreference(self) { try await body() }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 as Hummingbird serves it, each connection's task on the connection's event loop: reading its
    /// requests, the handlers, writing the responses. ``EventLoopTaskExecutor/current`` names that loop's executor
    /// for the tasks they start.
    public static func http1OnConnectionLoops(_ executors: EventLoopExecutors) -> HTTPServerBuilder {
        .init { responder in
            OnConnectionLoop(base: HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [ParseErrorAnswer()])),
                             executors: executors)
        }
    }
}

/// A child channel whose connection task runs on the connection's event loop.
struct OnConnectionLoop<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let executors: EventLoopExecutors

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Base.Value, logger: Logger) async {
        guard let executor = executors.executor(for: value.channel.eventLoop) else { return await base.handle(value: value, logger: logger) }
        await executor.run { await base.handle(value: value, logger: logger) }
    }
}
