import Foundation

/// For tests whose assertions group by the UTC day (costs per day, tokens per day, the overview's cohorts): one
/// that runs across midnight UTC sees its turns on two days and fails for a reason that is not its subject (a CI
/// run at 23:59 did). Called first, this waits until the new day when less than `margin` of today is left, so the
/// whole test runs within one day. It never fails a test; at worst it waits `margin`.
public enum UTCDay {
    public static func awayFromMidnight(margin: Duration = .seconds(150)) async throws {
        let secondsIntoDay = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        let left = 86_400 - secondsIntoDay
        guard left < Double(margin.components.seconds) else { return }
        try await Task.sleep(for: .seconds(left + 1))
    }
}
