import Foundation
import Logging
import PostgresNIO

/// The application's handle on Postgres: a connection pool plus the one rule every feature follows —
/// tenant-owned rows are only touched inside ``withTenant(_:_:)``, which pins the transaction to one tenant
/// so row-level security can enforce isolation even if a query forgets its `WHERE tenant_id = …`.
public struct Database: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Runs `body` in one transaction whose row-level-security scope is `tenantID`.
    ///
    /// `set_config(…, true)` is transaction-local, so a pooled connection never carries one tenant's scope
    /// into another request.
    public func withTenant<Result: Sendable>(
        _ tenantID: UUID,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction { [logger] connection in
            try await connection.query("SELECT set_config('app.tenant_id', \(tenantID.uuidString), true)", logger: logger)
            return try await body(connection)
        }
    }

    /// A transaction with no tenant scope: for platform tables (tenants, operators, the migration ledger).
    /// Tenant-owned tables show no rows here.
    public func withPlatformTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(body)
    }

    /// One transaction on a pooled connection, given up if the connection is lost under it (``LiveConnection``).
    private func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await Self.unwrappingTransactionErrors { [client, logger] in
            try await client.withLiveConnection { connection in
                try await connection.withTransaction(logger: logger) { try await body($0) }
            }
        }
    }

    /// PostgresNIO wraps whatever the body throws in `PostgresTransactionError`; callers want the original
    /// (an `APIError` must stay a 409, not become a 500). Failures of BEGIN/COMMIT themselves pass through.
    private static func unwrappingTransactionErrors<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error
        }
    }

    /// Runs `body` with a pool on `url` that lives exactly as long as the call: for commands, setup and tests.
    @discardableResult
    public static func connect<T: Sendable>(
        to url: DatabaseURL, logger: Logger, _ body: @Sendable (Database) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: try url.clientConfiguration(), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // Give run() a moment to start: a query issued before it logs a spurious warning (it still waits).
            try await Task.sleep(for: .milliseconds(5))
            return try await body(Database(client: client, logger: logger))
        }
    }

    /// `true` when Postgres answers a trivial query within `timeout`; used by `/readyz`, which must answer
    /// promptly even while the pool is stuck reconnecting.
    public func isReachable(timeout: Duration = .seconds(2)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await client.liveRows("SELECT 1", logger: logger)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

extension PSQLError {
    /// The SQLSTATE of a server error, e.g. `23505` for a unique violation.
    public var sqlState: String? { serverInfo?[.sqlState] }

    public var isUniqueViolation: Bool { sqlState == "23505" }
}
