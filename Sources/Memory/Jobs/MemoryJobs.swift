import Foundation
import HearthPlatform
import PostgresNIO

/// Memory's background jobs: their kinds, payloads and handlers (decision 0006 describes the queue).
public enum MemoryJobs {
    static let summarizeKind = "memory.summarize"
    static let extractKind = "memory.extract-facts"

    /// Sessions idle for the configured time get their summary job (every minute, on one instance).
    public static let idleSweep = JobSchedule(name: "memory.idle-sessions", every: .seconds(60), kind: "memory.idle-sessions")
    /// Summaries of sessions older than 90 days leave the prompts (hourly).
    public static let archive = JobSchedule(name: "memory.archive-summaries", every: .seconds(3600), kind: "memory.archive-summaries")
    static let archiveAfterDays = 90

    struct SummarizePayload: Codable, Sendable {
        let userID: UUID
        let threadID: UUID
        let reason: MemoryWriter.Reason
    }

    struct ExtractPayload: Codable, Sendable {
        let userID: UUID
        let summaryID: UUID
    }

    /// Summarizing a thread's session (deduplicated while one is pending: in-session and whole-session summaries apart).
    static func summarize(tenantID: UUID, userID: UUID, threadID: UUID, reason: MemoryWriter.Reason) throws -> NewJob {
        let scope = reason == .inSession ? "partial" : "session"
        return try NewJob(kind: summarizeKind, tenantID: tenantID, payload: SummarizePayload(userID: userID, threadID: threadID, reason: reason),
                          dedupeKey: "\(scope):\(threadID.uuidString.lowercased())")
    }

    static func extractFacts(tenantID: UUID, userID: UUID, summaryID: UUID) throws -> NewJob {
        try NewJob(kind: extractKind, tenantID: tenantID, payload: ExtractPayload(userID: userID, summaryID: summaryID))
    }

    /// The handlers and schedules `hearth serve` runs.
    public static func handlers(writer: MemoryWriter) -> [any JobHandler] {
        let idleSeconds = Int64(writer.options.idleAfter.seconds.rounded(.up))
        return [
            Summarize(writer: writer), ExtractFacts(writer: writer),
            SweepJob(idleSweep, database: writer.database, statement: "SELECT hearth_memory_enqueue_idle(\(idleSeconds))",
                     logging: "idle sessions queued for summaries"),
            SweepJob(archive, database: writer.database, statement: "SELECT hearth_memory_archive_summaries(\(archiveAfterDays))",
                     logging: "session summaries archived"),
        ]
    }

    public static let schedules = [idleSweep, archive]

    struct Summarize: JobHandler {
        let writer: MemoryWriter
        var kind: String { MemoryJobs.summarizeKind }

        func run(_ job: Job) async throws {
            let payload = try job.decodePayload(SummarizePayload.self)
            guard let tenantID = job.tenantID else { return }
            try await writer.summarize(tenantID: tenantID, userID: payload.userID, threadID: payload.threadID, reason: payload.reason,
                                      lastAttempt: job.attempt >= job.maxAttempts)
        }
    }

    struct ExtractFacts: JobHandler {
        let writer: MemoryWriter
        var kind: String { MemoryJobs.extractKind }

        func run(_ job: Job) async throws {
            let payload = try job.decodePayload(ExtractPayload.self)
            guard let tenantID = job.tenantID else { return }
            try await writer.extractFacts(tenantID: tenantID, userID: payload.userID, summaryID: payload.summaryID,
                                        lastAttempt: job.attempt >= job.maxAttempts)
        }
    }
}
