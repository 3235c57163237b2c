import Foundation
import HearthPlatform
import PostgresNIO

/// What `hearth_session_admit` (migration 0022) answers for a signed-in request: whether its session is live and,
/// when it is, the request counted against the tightest of its rate limits. The access-token middleware asks in
/// its own round trip; a send and a history page ask in their first statement instead (decisions 0015 and 0016),
/// which checks the person's limit first and counts the tenant's last (migration 0028, ``countingTheTenantLast(_:)``).
/// One rule for all.
public struct SessionGate: Sendable, Equatable {
    public let active: Bool
    public let name: String?
    public let quota: Int64?
    public let window: Int?
    public let used: Int64?
    public let reset: Int?

    public init(active: Bool, name: String?, quota: Int64?, window: Int?, used: Int64?, reset: Int?) {
        self.active = active
        self.name = name
        self.quota = quota
        self.window = window
        self.used = used
        self.reset = reset
    }

    /// The `gate` row of a statement that checks the session first (a send's `hearth_turn_begin`, migration 0030;
    /// `hearth_message_page`, 0027): the person's limit, its name NULL when the session is not live.
    public init(gateRowName name: String?, quota: Int64?, window: Int?, used: Int64?, reset: Int?) {
        self.init(active: name != nil, name: name, quota: quota, window: window, used: used, reset: reset)
    }

    /// The limit that decides, for the answer's `RateLimit` fields. Throws the 401 for a session that is not live
    /// and the 429 for an exceeded limit.
    public func admit() throws -> RateLimit {
        guard active, let name, let quota, let used, let reset else { throw APIError.sessionRevoked }
        let limit = RateLimit(name: name, quota: quota, window: window, used: used, reset: reset)
        if limit.exceeded { throw limit.refusal }
        return limit
    }

    /// Runs a statement that checks its session first and counts the request against the tenant's requests per
    /// second as its last step (migration 0028), so that the tenant's one counter row is locked only while the
    /// statement commits. Over that limit the step raises SQLSTATE `HR429` (detail: quota, used, reset) and the
    /// statement rolls back whole; this answers it with the same 429 the middleware gives.
    public static func countingTheTenantLast<Result>(_ statement: () async throws -> Result) async throws -> Result {
        do {
            return try await statement()
        } catch let error as PSQLError where error.sqlState == "HR429" {
            let numbers = (error.serverInfo?[.detail] ?? "").split(separator: " ").compactMap { Int64($0) }
            guard numbers.count == 3 else { throw error }
            throw RateLimit(name: "tenant-requests-per-second", quota: numbers[0], window: 1, used: numbers[1],
                            reset: Int(numbers[2])).refusal
        }
    }
}
