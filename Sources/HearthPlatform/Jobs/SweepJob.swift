import Logging
import PostgresNIO

/// A scheduled job that is one statement over every tenant — a SECURITY DEFINER function answering how many
/// rows it changed — logged when it changed any. The abandoned-answer sweep, the idle-session sweep and the
/// summary archive are such jobs.
public struct SweepJob: JobHandler {
    public let schedule: JobSchedule
    let statement: PostgresQuery
    let outcome: Logger.Message
    let level: Logger.Level
    let client: PostgresClient
    let logger: Logger

    /// - Parameter statement: `SELECT a_function(…)`, returning a bigint count.
    public init(_ schedule: JobSchedule, database: Database, statement: PostgresQuery, logging outcome: Logger.Message,
                level: Logger.Level = .info) {
        self.schedule = schedule
        self.statement = statement
        self.outcome = outcome
        self.level = level
        self.client = database.client
        self.logger = database.logger
    }

    public var kind: String { schedule.kind }

    public func run(_ job: Job) async throws {
        let count = try await client.liveRows(statement, logger: logger).first?.decode(Int64.self) ?? 0
        if count > 0 { logger.log(level: level, outcome, metadata: ["count": .stringConvertible(count)]) }
    }
}
