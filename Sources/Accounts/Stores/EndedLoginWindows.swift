import HearthPlatform

/// Deletes failed sign-in counters whose window has ended (migrations/0035_ended_login_windows_pruned.sql): a
/// counter is kept per account and client address while it counts, not for every one that ever failed. Runs every
/// hour on one instance.
public enum EndedLoginWindows {
    public static let schedule = JobSchedule(name: "accounts.ended-login-windows", every: .seconds(3600), kind: "accounts.ended-login-windows")

    /// `window`: the throttle's (``LoginThrottle/Policy/window``), after which a counter starts again.
    public static func job(window: Duration, database: Database) -> SweepJob {
        SweepJob(schedule, database: database, statement: "SELECT hearth_login_throttle_prune(\(Int(window.components.seconds)))",
                 logging: "ended sign-in counters deleted")
    }
}
