import Foundation
import PostgresNIO

/// Owns `audit_log` (migrations/0024_audit_log.sql): every change an operator makes, through the console or the
/// operator API, recorded in the change's own transaction so a change is never without its entry. Details name
/// settings and ids, never end users' content.
public struct AuditLog: Sendable {
    public struct Entry: Sendable, Equatable {
        public let at: Date
        public let operatorEmail: String
        public let action: String
        public let detail: String
    }

    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Records `action` by `author` in the caller's transaction (`tenantID` nil: a platform-wide change).
    public func record(_ action: String, detail: String, by author: Operator, tenantID: UUID?, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO audit_log (tenant_id, operator_id, operator_email, action, detail)
            VALUES (\(tenantID), \(author.id), \(author.email), \(action), \(String(detail.prefix(2000))))
            """,
            logger: logger
        )
    }

    /// The tenant's newest entries first.
    public func entries(tenantID: UUID, limit: Int = 200, on client: PostgresClient) async throws -> [Entry] {
        let rows = try await client.liveRows(
            """
            SELECT at, operator_email, action, detail FROM audit_log WHERE tenant_id = \(tenantID)
            ORDER BY at DESC, id DESC LIMIT \(limit)
            """,
            logger: logger
        )
        var entries: [Entry] = []
        for (at, email, action, detail) in try rows.decode((Date, String, String, String).self) {
            entries.append(Entry(at: at, operatorEmail: email, action: action, detail: detail))
        }
        return entries
    }
}

/// Who is making a change, for the store that makes it to record in the same transaction.
public struct Audited: Sendable {
    let log: AuditLog
    public let author: Operator

    public init(log: AuditLog, author: Operator) {
        self.log = log
        self.author = author
    }

    public func record(_ action: String, _ detail: String, tenantID: UUID?, on connection: PostgresConnection) async throws {
        try await log.record(action, detail: detail, by: author, tenantID: tenantID, on: connection)
    }
}
