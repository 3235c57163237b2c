/// Deletes rate windows that have ended (migrations/0034_ended_rate_windows_pruned.sql): a row is kept per person
/// and client address while it counts, not for every one ever limited. Runs every hour on one instance.
public enum EndedRateWindows {
    public static let schedule = JobSchedule(name: "rate-limits.ended-windows", every: .seconds(3600), kind: "rate-limits.ended-windows")

    public static func job(database: Database) -> SweepJob {
        SweepJob(schedule, database: database, statement: "SELECT hearth_rate_windows_prune()", logging: "ended rate windows deleted")
    }
}
