import Foundation
import HearthPlatform
import PostgresNIO

/// A person's live request windows (`rate_windows`, whose subject is their id), for support on the console's user
/// page: how much of each per-person limit they have used and when it resets. Their tokens today against the
/// plan are in ``SubscriptionView/limits``.
public struct RequestWindow: Sendable, Equatable {
    public let limit: String
    public let used: Int64
    public let quota: Int64
    public let resetSeconds: Int

    public static func read(tenantID: UUID, userID: UUID, database: Database) async throws -> [RequestWindow] {
        try await database.withTenant(tenantID) { connection in
            let rows = try await connection.query(
                """
                SELECT name, used, quota, greatest(1, ceil(extract(epoch FROM window_start - now()) + window_seconds))::integer
                FROM rate_windows
                WHERE subject = \(userID.uuidString.lowercased()) AND window_start + make_interval(secs => window_seconds) > now()
                ORDER BY name
                """,
                logger: database.logger
            )
            var windows: [RequestWindow] = []
            for try await (name, used, quota, reset) in rows.decode((String, Int64, Int64, Int).self) {
                windows.append(RequestWindow(limit: name, used: used, quota: quota, resetSeconds: reset))
            }
            return windows
        }
    }
}
