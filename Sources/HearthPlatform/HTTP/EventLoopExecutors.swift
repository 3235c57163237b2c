import Hummingbird
import NIOCore
import NIOPosix

/// Runs a request's tasks on the event loop of its connection (a Swift task executor per loop).
///
/// Without it, a request's code runs on Swift's global executor, a pool of threads apart from NIO's event loops,
/// and every hand-over between the two (a database reply, a provider's bytes, a frame written to the client) wakes
/// another thread. A chat turn made about twenty such hand-overs (docs/performance-notes.md). On its connection's
/// loop, the turn's own work, its stream to the client and its provider connection (``ProviderTransport`` opens
/// and picks connections on the caller's loop) hand over in the same thread; only the database's replies, on
/// whichever loop the pool's connection lives, still cross.
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

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// The outermost middleware: the handler and its response's body run on the connection's event loop, and
/// ``EventLoopTaskExecutor/current`` names it for the tasks they start.
public struct EventLoopAffinityMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let executors: EventLoopExecutors

    public init(executors: EventLoopExecutors) {
        self.executors = executors
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let executor = executors.executor(for: context.eventLoop) else { return try await next(request, context) }
        var response = try await EventLoopTaskExecutor.$current.withValue(executor) {
            try await withTaskExecutorPreference(executor) { try await next(request, context) }
        }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await EventLoopTaskExecutor.$current.withValue(executor) {
                try await withTaskExecutorPreference(executor) { try await body.write(writer) }
            }
        }
        return response
    }
}
