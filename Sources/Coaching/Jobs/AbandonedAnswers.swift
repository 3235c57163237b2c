import HearthPlatform
import PostgresNIO

/// Marks answers whose server died mid-generation as interrupted and frees their concurrent-stream slots, so apps
/// offer a retry instead of waiting on an answer that will never come (migrations 0008, 0037 and 0042). An answer
/// has lost its server when that server stopped renewing it for a lease's lifetime (``AnswerCheckpoints``); the
/// sweep runs every ten seconds on one instance, so the status follows within ten seconds of that.
public enum AbandonedAnswers {
    public static let schedule = JobSchedule(name: "coaching.abandoned-answers", every: .seconds(10), kind: "coaching.abandoned-answers")

    public static func job(database: Database, leases: AnswerLeases) -> SweepJob {
        SweepJob(schedule, database: database, statement: "SELECT hearth_interrupt_abandoned_answers(\(leases.lifetimeSeconds))",
                 logging: "abandoned answers marked interrupted", level: .notice)
    }
}
