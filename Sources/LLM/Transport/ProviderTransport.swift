import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The HTTP/1.1 client LLM calls go through: keep-alive connections pooled per origin, TLS for `https`.
///
/// Built for one job, a streamed completion, instead of AsyncHTTPClient's general one: a request is written in
/// one system call, and a response is handed over one network read at a time, with none of a general client's
/// layers between (decision 0021). Every streamed answer holds a connection for its whole length, so
/// `connectionsPerOrigin` bounds concurrent answers per provider; a request beyond it waits for a connection.
public final class ProviderTransport: Sendable {
    /// Where a connection goes: scheme, host and port.
    struct Origin: Hashable, Sendable {
        let tls: Bool
        let host: String
        let port: Int
    }

    private struct Idle {
        let connection: ProviderConnection
        let since: NIODeadline
    }

    private struct Pool {
        typealias Waiter = (id: Int, continuation: CheckedContinuation<ProviderConnection?, any Error>)
        /// Most recently used last: a request takes the warmest.
        var idle: [Idle] = []
        /// Connections open or opening, idle ones included.
        var open = 0
        /// Requests waiting for a connection: handed a freed one, or `nil` to open their own.
        var waiters: [Waiter] = []

        /// An idle connection (one on `loop` if there is one: its bytes then reach the caller without a thread
        /// hand-over, EventLoopExecutors), or `nil` for a place to open one; else `waiter` waits, and `nil` is
        /// returned.
        mutating func take(fresh: Bool, on loop: (any EventLoop)?, limit: Int, waiter: Waiter) -> Result<ProviderConnection?, any Error>? {
            while !fresh, !idle.isEmpty {
                let index = loop.flatMap { loop in idle.lastIndex { $0.connection.channel.eventLoop === loop } } ?? idle.count - 1
                let connection = idle.remove(at: index).connection
                if connection.isActive { return .success(connection) }
                open -= 1 // closed by the server while idle
            }
            if open < limit {
                open += 1
                return .success(nil)
            }
            // Checked under the lock that the cancellation handler takes: it either ran before (and this sees it)
            // or finds this waiter.
            guard !Task.isCancelled else { return .failure(CancellationError()) }
            waiters.append(waiter)
            return nil
        }

        /// A connection's place is freed: `kept` (a connection for the next request) or nothing (it was closed,
        /// or never opened). The first waiter gets it, or its place to open its own; else `kept` goes idle. Returns
        /// that waiter, and whether `kept` stays open (handed over or idle).
        mutating func free(_ kept: ProviderConnection?, shutDown: Bool) -> (waiter: CheckedContinuation<ProviderConnection?, any Error>?, kept: Bool) {
            if !shutDown, !waiters.isEmpty {
                return (waiters.removeFirst().continuation, kept != nil)
            }
            if let kept, !shutDown {
                idle.append(Idle(connection: kept, since: .now()))
                return (nil, true)
            }
            open -= 1
            return (nil, false)
        }
    }

    private struct State {
        var pools: [Origin: Pool] = [:]
        var nextWaiter = 0
        var shutDown = false
    }

    struct ShutDown: Error {}

    let group: any EventLoopGroup
    let connectionsPerOrigin: Int
    let idleTimeout: TimeAmount
    let connectTimeout: TimeAmount
    private let tls: NIOSSLContext
    private let state = NIOLockedValueBox(State())
    /// One timer for all idle connections, rather than one per release.
    private let sweep: RepeatedTask

    /// How `https` providers are reached by default: TLS 1.2 or later, certificates verified against the system's
    /// trust roots and the provider's host name.
    public static var defaultTLS: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        return tls
    }

    public init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, connectionsPerOrigin: Int,
                idleTimeout: TimeAmount = .seconds(60), connectTimeout: TimeAmount = .seconds(10),
                tls: TLSConfiguration = ProviderTransport.defaultTLS) throws {
        self.group = group
        self.connectionsPerOrigin = connectionsPerOrigin
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
        self.tls = try NIOSSLContext(configuration: tls)
        let state = self.state
        sweep = group.any().scheduleRepeatedTask(initialDelay: idleTimeout, delay: .nanoseconds(idleTimeout.nanoseconds / 2)) { _ in
            ProviderTransport.closeExpired(in: state, idleFor: idleTimeout)
        }
    }

    /// A connection to `origin`, idle or new; give it back with ``release(_:to:reusable:)``. `fresh`: not an idle one.
    func acquire(_ origin: Origin, fresh: Bool = false) async throws -> (connection: ProviderConnection, reused: Bool) {
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let loop = MultiThreadedEventLoopGroup.currentEventLoop
        // An idle connection, or `nil` for a place to open one: at once, or when a connection is released.
        let handed: ProviderConnection? = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now: Result<ProviderConnection?, any Error>? = state.withLockedValue { state in
                    guard !state.shutDown else { return .failure(ShutDown()) }
                    // The pool is changed in place (a copy of it would copy its arrays).
                    return state.pools[origin, default: Pool()].take(fresh: fresh, on: loop, limit: connectionsPerOrigin,
                                                                   waiter: (id, continuation))
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<ProviderConnection?, any Error>? in
                guard let index = state.pools[origin]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.pools[origin]?.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
        if let handed { return (handed, true) }
        return (try await connectCounted(origin, on: loop), false)
    }

    /// Takes a connection back after its exchange: kept for the next request when `reusable` (its response was
    /// read to the end and the server keeps it alive), closed otherwise. A waiting request gets it, or its place.
    func release(_ connection: ProviderConnection, to origin: Origin, reusable: Bool) {
        let keep = reusable && connection.isActive
        let (waiter, kept) = state.withLockedValue { state in
            state.pools[origin, default: Pool()].free(keep ? connection : nil, shutDown: state.shutDown)
        }
        if !kept { connection.close() }
        waiter?.resume(returning: kept ? connection : nil)
    }

    /// Connections kept for a next request, over all origins: for tests, which wait for a finished answer's
    /// connection to come back rather than for a time that a loaded machine can overrun.
    package var idleConnections: Int {
        state.withLockedValue { state in state.pools.values.reduce(0) { $0 + $1.idle.count } }
    }

    /// Closes every idle connection and refuses new requests; answers in flight finish on theirs.
    public func shutdown() {
        sweep.cancel()
        let (idle, waiters) = state.withLockedValue { state in
            state.shutDown = true
            var idle: [ProviderConnection] = []
            var waiters: [CheckedContinuation<ProviderConnection?, any Error>] = []
            for origin in state.pools.keys {
                idle += state.pools[origin]!.idle.map(\.connection)
                waiters += state.pools[origin]!.waiters.map(\.continuation)
                state.pools[origin]!.open -= state.pools[origin]!.idle.count
                state.pools[origin]!.idle = []
                state.pools[origin]!.waiters = []
            }
            return (idle, waiters)
        }
        idle.forEach { $0.close() }
        waiters.forEach { $0.resume(throwing: ShutDown()) }
    }

    /// Closes connections idle for longer than `idleTimeout`, and forgets those the server closed.
    private static func closeExpired(in state: NIOLockedValueBox<State>, idleFor idleTimeout: TimeAmount) {
        let deadline = NIODeadline.now() - idleTimeout
        let expired = state.withLockedValue { state in
            var expired: [ProviderConnection] = []
            for origin in state.pools.keys {
                let before = expired.count
                state.pools[origin]!.idle.removeAll { idle in
                    guard idle.since < deadline || !idle.connection.isActive else { return false }
                    expired.append(idle.connection)
                    return true
                }
                state.pools[origin]!.open -= expired.count - before
            }
            return expired
        }
        expired.forEach { $0.close() }
    }

    /// Opens a connection already counted in its pool's `open`; uncounts it if that fails.
    private func connectCounted(_ origin: Origin, on loop: (any EventLoop)?) async throws -> ProviderConnection {
        do {
            return try await connect(origin, on: loop)
        } catch {
            let (waiter, _) = state.withLockedValue { state in
                state.pools[origin, default: Pool()].free(nil, shutDown: state.shutDown)
            }
            waiter?.resume(returning: nil) // it tries for itself
            throw error
        }
    }

    /// On the caller's loop when it runs on one of ours.
    private func connect(_ origin: Origin, on loop: (any EventLoop)?) async throws -> ProviderConnection {
        let reader = ResponseReader()
        let tls = origin.tls ? self.tls : nil
        // SNI and certificate checks by name, except for an address: NIOSSL then checks the certificate's IP entries.
        let serverName = origin.tls && !Self.isAddress(origin.host) ? origin.host : nil
        let channel = try await ClientBootstrap(group: loop.flatMap { loop in group.makeIterator().contains { $0 === loop } ? loop : nil } ?? group)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(reader)
                }
            }
            .connect(host: origin.host, port: origin.port).get()
        return ProviderConnection(channel: channel, reader: reader)
    }

    static func isAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

extension ProviderTransport {
    /// Sends a request and waits for its response's head: returned with whatever came with it. A reused
    /// connection that fails before answering (the server closed it while idle) is replaced by a new one, once.
    func send(_ head: HTTPRequestHead, body: ByteBuffer, to origin: Origin) async throws -> (ProviderConnection, ProviderConnection.Received) {
        var fresh = false
        while true {
            let (connection, reused) = try await acquire(origin, fresh: fresh)
            connection.send(head, body: body)
            do {
                var received = try await connection.receive()
                while received.head == nil {
                    guard !received.ended else { throw ProviderError(.malformed, "a response without a head") }
                    received = try await connection.receive()
                }
                return (connection, received)
            } catch {
                release(connection, to: origin, reusable: false)
                guard reused, !fresh, error is ResponseReader.Closed, !Task.isCancelled else { throw error }
                fresh = true
            }
        }
    }
}
