import HearthPlatform
import PostgresNIO

/// Marks answers whose server died mid-generation as interrupted, so apps offer a retry instead of waiting on
/// an answer that will never come (migrations/0008_abandoned_answers.sql). Runs every minute on one instance.
public enum AbandonedAnswers {
    public static let schedule = JobSchedule(name: "coaching.abandoned-answers", every: .seconds(60), kind: "coaching.abandoned-answers")

    public static func job(database: Database) -> SweepJob {
        SweepJob(schedule, database: database, statement: "SELECT hearth_interrupt_abandoned_answers(\(MessageStore.abandonedAfterSeconds))",
                 logging: "abandoned answers marked interrupted", level: .notice)
    }
}
