import Foundation
import HearthPlatform

/// What `hearth_session_admit` (migration 0022) answers for a signed-in request: whether its session is live and,
/// when it is, the request counted against the tightest of its rate limits. The access-token middleware asks in
/// its own round trip; a send asks in its context read instead (migration 0025, decision 0015). One rule for both.
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

    /// The `gate` row of a statement that checks the session first (`hearth_turn_context`, migration 0025;
    /// `hearth_message_page`, 0027): the limit's name is NULL there when the session is not live.
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
}
