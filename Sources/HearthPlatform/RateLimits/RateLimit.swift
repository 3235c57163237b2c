import HTTPTypes
import Hummingbird

/// Where a request stands against one limit, and how that is said on the wire: the `RateLimit-Policy` and
/// `RateLimit` fields of the IETF draft (draft-ietf-httpapi-ratelimit-headers-10) on answers, and on a refusal a
/// 429 with `Retry-After` as well.
///
/// Limits are counted in Postgres (`hearth_rate_take`, migrations/0020), so every server instance shares them.
public struct RateLimit: Sendable, Equatable {
    /// The policy's name on the wire (`requests-per-minute`, `tokens-per-day`…).
    public let name: String
    public let quota: Int64
    /// The window in seconds; `nil` for a limit that is not a window (concurrent answers).
    public let window: Int?
    /// Uses counted in the current window, this one included.
    public let used: Int64
    /// Seconds until the window ends (or, for concurrency, a suggested wait).
    public let reset: Int

    public init(name: String, quota: Int64, window: Int?, used: Int64, reset: Int) {
        self.name = name
        self.quota = quota
        self.window = window
        self.used = used
        self.reset = max(1, reset)
    }

    /// A limit the request is over, as a check that is not a counter reports it (tokens per day, concurrent answers,
    /// a monthly budget): nothing remains until `reset`.
    public static func exhausted(_ name: String, quota: Int64, window: Int?, reset: Int) -> RateLimit {
        RateLimit(name: name, quota: quota, window: window, used: quota + 1, reset: reset)
    }

    public var exceeded: Bool { used > quota }
    public var remaining: Int64 { max(0, quota - used) }

    /// `RateLimit-Policy` and `RateLimit`, e.g. `"requests-per-minute";q=60;w=60` and `"requests-per-minute";r=59;t=42`.
    public var headers: HTTPFields {
        var policy = "\"\(name)\";q=\(quota)"
        if let window { policy += ";w=\(window)" }
        return [.rateLimitPolicy: policy, .rateLimit: "\"\(name)\";r=\(remaining);t=\(reset)"]
    }

    /// The 429 for an exceeded limit.
    public var refusal: APIError {
        var error = APIError.tooManyRequests("rate_limited", "Too many requests (\(name)). Try again in \(reset) seconds.", retryAfter: reset)
        error.headers.append(contentsOf: headers)
        return error
    }
}

extension HTTPField.Name {
    public static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    public static let rateLimit = HTTPField.Name("RateLimit")!
}

extension Response {
    /// The answer with a limit's `RateLimit` fields, where it has none of its own.
    public func withRateLimitFields(_ limit: RateLimit?) -> Response {
        guard let limit else { return self }
        var response = self
        for field in limit.headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
