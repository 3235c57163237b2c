import Foundation
import PostgresNIO

extension RateLimit {
    /// The request windows of `subject` (a person's id) that have not ended, from `rate_windows` (migrations/0020),
    /// in the caller's tenant transaction: what support sees of a person's limits.
    public static func openWindows(subject: String, on connection: PostgresConnection, logger: Logger) async throws -> [RateLimit] {
        let rows = try await connection.query(
            """
            SELECT name, quota, window_seconds, used, ceil(extract(epoch FROM window_start - now()) + window_seconds)::integer
            FROM rate_windows
            WHERE subject = \(subject) AND window_start + make_interval(secs => window_seconds) > now()
            ORDER BY name
            """,
            logger: logger
        )
        var windows: [RateLimit] = []
        for try await (name, quota, window, used, reset) in rows.decode((String, Int64, Int, Int64, Int).self) {
            windows.append(RateLimit(name: name, quota: quota, window: window, used: used, reset: reset))
        }
        return windows
    }
}
