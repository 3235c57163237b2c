import Foundation

/// A job to enqueue. The payload carries ids and parameters only, never personal content: job rows are
/// not encrypted (migrations/0007_jobs.sql).
public struct NewJob: Sendable {
    public var kind: String
    public var tenantID: UUID?
    /// JSON.
    public var payload: String
    /// While a job with the same kind and key is pending, enqueueing another does nothing.
    public var dedupeKey: String?
    public var runAt: Date?
    public var maxAttempts: Int

    public init(kind: String, tenantID: UUID? = nil, payload: some Encodable & Sendable, dedupeKey: String? = nil,
                runAt: Date? = nil, maxAttempts: Int = 5) throws {
        self.kind = kind
        self.tenantID = tenantID
        self.payload = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        self.dedupeKey = dedupeKey
        self.runAt = runAt
        self.maxAttempts = maxAttempts
    }
}

/// A claimed job, as its handler sees it.
public struct Job: Sendable {
    public let id: Int64
    public let kind: String
    public let tenantID: UUID?
    /// JSON.
    public let payload: String
    /// This run's number, from 1.
    public let attempt: Int
    public let maxAttempts: Int

    public func decodePayload<Payload: Decodable>(_ type: Payload.Type) throws -> Payload {
        try JSONDecoder().decode(type, from: Data(payload.utf8))
    }
}

/// Runs the jobs of one kind. Delivery is at least once (a job whose worker dies mid-run runs again when its
/// lease expires), so handlers are idempotent. A thrown error is retried with backoff until the job's
/// attempts run out; then the job is dead and stays visible (`hearth jobs list --state dead`). Errors are
/// recorded, so they must not carry personal content.
public protocol JobHandler: Sendable {
    var kind: String { get }
    func run(_ job: Job) async throws
}

/// A job enqueued every `interval`, by exactly one instance each time.
public struct JobSchedule: Sendable {
    public let name: String
    public let interval: Duration
    public let kind: String

    public init(name: String, every interval: Duration, kind: String) {
        self.name = name
        self.interval = interval
        self.kind = kind
    }
}
