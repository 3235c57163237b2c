import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Applies ``Migration``s in order, each in its own transaction, recording them in `schema_migrations`.
///
/// Safe to run from several instances at once: a session advisory lock serialises them, and the second
/// finds nothing left to do.
public struct Migrator: Sendable {
    public struct Report: Sendable, Equatable {
        public var applied: [String] = []
        public var alreadyApplied = 0

        public init(applied: [String] = [], alreadyApplied: Int = 0) {
            self.applied = applied
            self.alreadyApplied = alreadyApplied
        }
    }

    /// Arbitrary constant identifying Hearth's migration lock among advisory locks.
    static let advisoryLockKey: Int64 = 0x4845_4152_5448

    let migrations: [Migration]
    let logger: Logger

    public init(migrations: [Migration], logger: Logger) {
        self.migrations = migrations
        self.logger = logger
    }

    public func run(on client: PostgresClient) async throws -> Report {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.advisoryLockKey))", logger: logger)
            do {
                let report = try await apply(on: connection)
                try await connection.query("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
                return report
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
                throw error
            }
        }
    }

    private func apply(on connection: PostgresConnection) async throws -> Report {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    integer PRIMARY KEY,
                name       text NOT NULL,
                checksum   text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            logger: logger
        )
        var applied: [Int: (name: String, checksum: String)] = [:]
        let rows = try await connection.query("SELECT version, name, checksum FROM schema_migrations", logger: logger)
        for try await (version, name, checksum) in rows.decode((Int, String, String).self) {
            applied[version] = (name, checksum)
        }
        // Verify the whole ledger before touching anything: an edited or vanished file stops the run.
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = migrations.first(where: { $0.version == version }) else {
                throw MigrationError.missingFile(version: version, name: record.name)
            }
            if migration.checksum != record.checksum {
                throw MigrationError.changedAfterApply(file: migration.fileName)
            }
        }
        var report = Report(alreadyApplied: applied.count)
        for migration in migrations where applied[migration.version] == nil {
            try await apply(migration, on: connection)
            report.applied.append(migration.fileName)
            logger.info("applied migration", metadata: ["migration": .string(migration.fileName)])
        }
        return report
    }

    private func apply(_ migration: Migration, on connection: PostgresConnection) async throws {
        var failedLine: Int?
        do {
            try await connection.query("BEGIN", logger: logger)
            for statement in SQLScript.split(migration.sql) {
                failedLine = statement.line
                try await connection.query(PostgresQuery(unsafeSQL: statement.sql), logger: logger)
                failedLine = nil
            }
            try await connection.query(
                """
                INSERT INTO schema_migrations (version, name, checksum)
                VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                """,
                logger: logger
            )
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw MigrationError.failed(file: migration.fileName, line: failedLine, reason: Self.reason(error))
        }
    }

    static func reason(_ error: any Error) -> String {
        guard let psql = error as? PSQLError, let info = psql.serverInfo else { return String(describing: error) }
        return [info[.sqlState].map { "[\($0)]" }, info[.message], info[.detail], info[.hint]]
            .compactMap { $0 }
            .joined(separator: " ")
    }
}
