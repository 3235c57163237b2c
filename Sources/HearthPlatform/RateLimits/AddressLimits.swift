import Foundation
import Logging
import PostgresNIO

/// Sign-up and sign-in attempts per client address, against the tenant's limits (`tenant_limits`): one statement,
/// counted before the attempt is worked on, so parallel attempts cannot slip past.
public struct AddressLimits: Sendable {
    public enum Action: String, Sendable {
        case signUp = "signup"
        case logIn = "login"
    }

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Counts one attempt; throws the 429 when the address is over the limit. Without an address (not a TCP
    /// peer, which only tests arrange) there is nothing to count.
    public func take(_ action: Action, tenantID: UUID, address: String?) async throws {
        guard let address else { return }
        let rows = try await client.liveRows(
            "SELECT name, quota, window_seconds, used, reset_seconds FROM hearth_address_take(\(tenantID), \(action.rawValue), \(address))",
            logger: logger
        )
        for (name, quota, window, used, reset) in try rows.decode((String, Int64, Int, Int64, Int).self) {
            let limit = RateLimit(name: name, quota: quota, window: window, used: used, reset: reset)
            if limit.exceeded { throw limit.refusal }
        }
    }
}
