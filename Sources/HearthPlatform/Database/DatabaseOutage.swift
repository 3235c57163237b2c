import Foundation
import NIOCore
import PostgresNIO
import Synchronization

/// While Postgres is unreachable, requests are refused at once with a 503 and `Retry-After` instead of queueing for
/// a connection: a restart, a failover or an out-of-memory kill must not pile requests up in the pool.
///
/// Each pool has one. A statement that fails because the connection to Postgres failed (a refused connection, the
/// server shutting down or closing it, `57P01`–`57P03`, `08…`, ``ConnectionLost``) opens it for
/// ``DatabaseOutage/window``; while it is open every lease is refused before it is asked for. Once the window has
/// passed the next requests go through as probes: one that fails opens it again, and the first that succeeds
/// closes it. So service is back within a window of the database's return (decision 0027).
///
/// The pool itself keeps `minimumConnections` at 0, which keeps PostgresNIO 1.33.2 off the trap that took the
/// process down when leases queued while the database refused connections (decision 0027).
public final class DatabaseOutage: Sendable {
    /// How long a failure refuses requests before the next ones probe.
    public static let window: Duration = .seconds(1)

    /// Uptime (nanoseconds) until which requests are refused; 0 when closed.
    private let openUntil = Atomic<UInt64>(0)

    /// How many breakers in this process are open: while none is (the usual case), a statement pays one atomic load
    /// and no lookup of its pool's breaker.
    private static let openBreakers = Atomic<Int>(0)

    static var anyOpen: Bool { openBreakers.load(ordering: .relaxed) > 0 }

    init() {}

    deinit {
        if openUntil.load(ordering: .relaxed) != 0 { Self.openBreakers.subtract(1, ordering: .relaxed) }
    }

    /// Throws ``DatabaseUnavailable`` while the window is open.
    func check() throws {
        let until = openUntil.load(ordering: .relaxed)
        guard until != 0 else { return }
        let now = Self.uptime()
        if now < until { throw DatabaseUnavailable(retryAfterSeconds: Int((until - now) / 1_000_000_000) + 1) }
    }

    /// A connection failed: refuse requests for a window from now.
    func open() {
        let window = Self.window.components
        let until = Self.uptime() + UInt64(window.seconds) * 1_000_000_000 + UInt64(window.attoseconds / 1_000_000_000)
        if openUntil.exchange(until, ordering: .relaxed) == 0 { Self.openBreakers.add(1, ordering: .relaxed) }
    }

    /// A statement succeeded: the database is back.
    func close() {
        guard openUntil.load(ordering: .relaxed) != 0, openUntil.exchange(0, ordering: .relaxed) != 0 else { return }
        Self.openBreakers.subtract(1, ordering: .relaxed)
    }

    /// Failures of the connection rather than of the statement.
    public static func isConnectionFailure(_ error: any Error) -> Bool {
        switch error {
        case is ConnectionLost, is DatabaseUnavailable:
            return true
        case let error as PSQLError:
            switch error.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
                return true
            case .server:
                // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now; 08 connection exceptions.
                guard let state = error.sqlState else { return false }
                return state.hasPrefix("57P") || state.hasPrefix("08")
            default:
                return false
            }
        case let error as PostgresTransactionError:
            return [error.beginError, error.closureError, error.commitError, error.rollbackError].contains { $0.map(isConnectionFailure) ?? false }
        default:
            return (error as? any ChannelErrorMarker) != nil
        }
    }

    private static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Each live pool's breaker. An entry whose pool is gone is replaced when its identifier is reused.
    private struct Entry {
        weak var client: PostgresClient?
        let outage: DatabaseOutage
    }
    private static let outages = Mutex<[ObjectIdentifier: Entry]>([:])

    /// The breaker of `client`'s pool.
    static func of(_ client: PostgresClient) -> DatabaseOutage {
        outages.withLock { outages in
            if let entry = outages[ObjectIdentifier(client)], entry.client === client { return entry.outage }
            outages = outages.filter { $0.value.client != nil }
            let outage = DatabaseOutage()
            outages[ObjectIdentifier(client)] = Entry(client: client, outage: outage)
            return outage
        }
    }
}

/// NIO's channel errors (a refused or reset connection) mark a connection failure too.
protocol ChannelErrorMarker {}
extension NIOCore.ChannelError: ChannelErrorMarker {}
extension NIOCore.IOError: ChannelErrorMarker {}

/// Postgres is unreachable: the request is refused with 503 `database_unavailable` and `Retry-After`.
public struct DatabaseUnavailable: Error, CustomStringConvertible {
    public let retryAfterSeconds: Int
    public var description: String { "Postgres is unreachable; retry in \(retryAfterSeconds) s" }
}
