import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Work on one pooled connection that gives up once the connection has closed under it.
///
/// PostgresNIO 1.33.2 hands a statement to its connection with `channel.write(task, promise: nil)`. Written after
/// the channel has closed (its handlers already gone), the statement is dropped, its promise is never completed,
/// and whoever awaits it waits forever. That happens when Postgres restarts, fails over or terminates a backend
/// while a connection is being leased, or between a transaction's statements, and above all for the `ROLLBACK`
/// that follows a statement the closing connection failed. Terminating backends under load left requests, answers
/// and job workers waiting for good (decision 0026; `LiveConnectionTests`).
///
/// So the work runs in a task of its own while a timer looks at the connection every `LiveConnection.interval`: once
/// the connection is closed and the work is still not done, the caller gets ``ConnectionLost`` and the work is
/// abandoned (a statement in flight when a connection closes fails at once, so only a dropped one is still waiting
/// by then). The lost task stays suspended; it holds nothing the pool still counts.
enum LiveConnection {
    static let interval: TimeAmount = .seconds(1)

    static func run<T: Sendable>(
        _ connection: PostgresConnection, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.begin(continuation)
                // On the caller's event loop, like the caller (EventLoopExecutors).
                let work = Task(executorPreference: EventLoopTaskExecutor.current) {
                    do {
                        race.end(.success(try await body(connection)))
                    } catch {
                        race.end(.failure(error))
                    }
                }
                let loop = EventLoopTaskExecutor.current?.loop ?? MultiThreadedEventLoopGroup.singleton.any()
                race.watch(work, timer: loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                    if connection.isClosed { race.end(.failure(ConnectionLost(connectionID: connection.id))) }
                })
            }
        } onCancel: {
            race.cancelWork()
        }
    }

    /// The first of the work's end and the connection's loss, delivered once.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var work: Task<Void, Never>?
            var timer: RepeatedTask?
            var outcome: Result<T, any Error>?
            var cancelled = false
        }
        private let state = Mutex(State())

        func begin(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// Registers the work and its timer; either may already have ended it.
        func watch(_ work: Task<Void, Never>, timer: RepeatedTask) {
            let (ended, cancelled) = state.withLock { state in
                state.work = work
                state.timer = timer
                return (state.outcome != nil, state.cancelled)
            }
            if ended { timer.cancel() }
            if cancelled { work.cancel() }
        }

        func end(_ outcome: Result<T, any Error>) {
            let (continuation, timer, work) = state.withLock { state -> (CheckedContinuation<T, any Error>?, RepeatedTask?, Task<Void, Never>?) in
                guard state.outcome == nil else { return (nil, nil, nil) }
                state.outcome = outcome
                defer { state.continuation = nil }
                return (state.continuation, state.timer, state.work)
            }
            guard let continuation else { return }
            timer?.cancel()
            if case .failure(let error) = outcome, error is ConnectionLost { work?.cancel() }
            continuation.resume(with: outcome)
        }

        func cancelWork() {
            let work = state.withLock { state -> Task<Void, Never>? in
                state.cancelled = true
                return state.work
            }
            work?.cancel()
        }
    }
}

/// The connection a statement was waiting on closed, and the statement was lost with it (``LiveConnection``).
public struct ConnectionLost: Error, CustomStringConvertible {
    /// `nil`: every connection lent was closed before the statement could be written.
    public let connectionID: PostgresConnection.ID?
    public var description: String {
        connectionID.map { "Postgres connection \($0) closed while a statement was waiting on it" }
            ?? "Postgres connections closed before a statement could be written to one"
    }
}

extension PostgresClient {
    /// `body` on a pooled connection, given up with ``ConnectionLost`` if the connection closes under it
    /// (``LiveConnection``). Read what a statement returns inside `body`: its rows are the connection's.
    func withLiveConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await watchingOutages {
            try await withConnection { connection in
                try await LiveConnection.run(connection, body)
            }
        }
    }

    /// `body`, refused at once while Postgres is known to be unreachable, its outcome recorded (``DatabaseOutage``).
    func watchingOutages<T>(_ body: () async throws -> T) async throws -> T {
        // With no breaker open anywhere (the usual case) this pool's is not looked up.
        let outage = DatabaseOutage.anyOpen ? DatabaseOutage.of(self) : nil
        try outage?.check()
        do {
            let result = try await body()
            outage?.close()
            return result
        } catch {
            if DatabaseOutage.isConnectionFailure(error) { (outage ?? DatabaseOutage.of(self)).open() }
            throw error
        }
    }
}

extension PostgresClient {
    /// A statement's rows, read whole on a pooled connection that was still open when the statement was written:
    /// the form for a store's statement outside a transaction. PostgresNIO's pool can lend a connection whose
    /// channel has just closed, before it has heard (the window where ``LiveConnection``'s statements are lost), so
    /// the connection is looked at between the lease and the write, and a closed one is swapped for another: the
    /// statement never left, so sending it again is safe. The turn's benchmarks show no cost for it
    /// (docs/performance-notes.md, twelfth notes). A transaction, whose later statements and `ROLLBACK` can meet a
    /// connection that closed between them, is watched instead (``LiveConnection``).
    @discardableResult
    public func liveRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await onOpenConnection { try await $0.query(query, logger: logger).collect() }
    }

    /// A prepared statement's rows, decoded, as ``liveRows(_:logger:)`` reads them.
    public func liveRows<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await onOpenConnection { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    private func onOpenConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await watchingOutages { try await onOpenConnectionOnce(body) }
    }

    private func onOpenConnectionOnce<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            let outcome: T? = try await withConnection { connection in
                // Nothing suspends between this look and the statement's write.
                guard !connection.isClosed else { return nil }
                return try await body(connection)
            }
            if let outcome { return outcome }
            attempt += 1
            guard attempt < 3 else { throw ConnectionLost(connectionID: nil) }
        }
    }
}

extension Array where Element == PostgresRow {
    /// Every row decoded, as a `PostgresRowSequence` decodes them, for rows read whole
    /// (``PostgresClient/liveRows(_:logger:)``).
    public func decode<Column: PostgresDecodable>(_: Column.Type) throws -> [Column] {
        try map { try $0.decode(Column.self) }
    }

    /// Every row decoded as a tuple of columns.
    public func decode<each Column: PostgresDecodable>(_: (repeat each Column).Type) throws -> [(repeat each Column)] {
        try map { try $0.decode((repeat each Column).self) }
    }
}
