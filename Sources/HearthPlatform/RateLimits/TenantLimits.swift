import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// A tenant's limits that are not per plan (`tenant_limits`, migrations/0020): all of its requests per second,
/// and sign-up and sign-in attempts per client address. Owns the table; every tenant has a row from creation.
public struct TenantLimits: Codable, ResponseEncodable, Sendable, Equatable {
    public var requestsPerSecond: Int
    public var signupsPerHourPerAddress: Int
    public var loginsPerMinutePerAddress: Int

    public init(requestsPerSecond: Int, signupsPerHourPerAddress: Int, loginsPerMinutePerAddress: Int) {
        self.requestsPerSecond = requestsPerSecond
        self.signupsPerHourPerAddress = signupsPerHourPerAddress
        self.loginsPerMinutePerAddress = loginsPerMinutePerAddress
    }

    /// Each value must be between 1 and 1,000,000.
    public func validated() throws -> TenantLimits {
        for (name, value) in [("requestsPerSecond", requestsPerSecond), ("signupsPerHourPerAddress", signupsPerHourPerAddress),
                              ("loginsPerMinutePerAddress", loginsPerMinutePerAddress)] where !(1...1_000_000).contains(value) {
            throw APIError.validation("\(name) must be between 1 and 1000000.")
        }
        return self
    }

    /// Reads them in the connection's tenant transaction.
    public static func read(on connection: PostgresConnection, logger: Logger) async throws -> TenantLimits {
        let rows = try await connection.query(
            "SELECT requests_per_second, signups_per_hour_per_address, logins_per_minute_per_address FROM tenant_limits WHERE tenant_id = hearth_tenant_id()",
            logger: logger
        )
        for try await (perSecond, signups, logins) in rows.decode((Int, Int, Int).self) {
            return TenantLimits(requestsPerSecond: perSecond, signupsPerHourPerAddress: signups, loginsPerMinutePerAddress: logins)
        }
        throw APIError.internalError
    }

    public func save(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE tenant_limits SET requests_per_second = \(requestsPerSecond),
                signups_per_hour_per_address = \(signupsPerHourPerAddress),
                logins_per_minute_per_address = \(loginsPerMinutePerAddress), updated_at = now()
            WHERE tenant_id = hearth_tenant_id()
            """,
            logger: logger
        )
    }
}
