import HearthPlatform
import Logging
import PostgresNIO

/// Marks answers whose server died mid-generation as interrupted, so apps offer a retry instead of waiting on
/// an answer that will never come (migrations/0008_abandoned_answers.sql). Runs every minute on one instance.
public struct AbandonedAnswers: JobHandler {
    public static let schedule = JobSchedule(name: "coaching.abandoned-answers", every: .seconds(60), kind: "coaching.abandoned-answers")

    public var kind: String { Self.schedule.kind }
    let client: PostgresClient
    let logger: Logger

    public init(database: Database) {
        self.client = database.client
        self.logger = database.logger
    }

    public func run(_ job: Job) async throws {
        let rows = try await client.query(
            "SELECT hearth_interrupt_abandoned_answers(\(MessageStore.abandonedAfterSeconds))", logger: logger
        )
        let swept = try await rows.collect().first?.decode(Int64.self) ?? 0
        if swept > 0 {
            logger.notice("abandoned answers marked interrupted", metadata: ["count": .stringConvertible(swept)])
        }
    }
}
