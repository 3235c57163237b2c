import Foundation

/// The Coach App PRD's dashboard KPIs ("Measurable Outcomes"), each judged against its target and red-flag
/// threshold from a tenant's (or every tenant's) ``ProductMetrics/Counts``.
struct Scorecard {
    enum Standing: String {
        case onTarget = "good"
        case watch = "warn"
        case redFlag = "bad"
        case noData = "none"
    }

    struct KPI {
        let name: String
        /// "31%", "1.6", "$2.40"; "—" with no data.
        let value: String
        /// What the value is made of, e.g. "12 of 40 people".
        let detail: String
        let target: String
        /// `nil` where the PRD gives none.
        let redFlag: String?
        let standing: Standing
        /// The standing as a style class and in words, so colour is never the only sign (templates see stored
        /// properties only).
        let standingClass: String
        let standingText: String

        init(name: String, value: String, detail: String, target: String, redFlag: String?, standing: Standing) {
            self.name = name
            self.value = value
            self.detail = detail
            self.target = target
            self.redFlag = redFlag
            self.standing = standing
            standingClass = standing.rawValue
            standingText = switch standing {
            case .onTarget: "on target"
            case .watch: "off target"
            case .redFlag: "red flag"
            case .noData: "no data yet"
            }
        }
    }

    /// A KPI's bounds: at or past `target` is on target; past `redFlag` (the other way) is a red flag.
    struct Threshold {
        let target: Double
        let redFlag: Double?
        let higherIsBetter: Bool

        func standing(_ value: Double) -> Standing {
            if higherIsBetter {
                if value >= target { return .onTarget }
                if let redFlag, value < redFlag { return .redFlag }
            } else {
                if value <= target { return .onTarget }
                if let redFlag, value > redFlag { return .redFlag }
            }
            return .watch
        }
    }

    static let dauOverMau = Threshold(target: 0.25, redFlag: 0.15, higherIsBetter: true)
    static let weekOneRetention = Threshold(target: 0.40, redFlag: 0.25, higherIsBetter: true)
    static let sessionsPerWeek = Threshold(target: 2, redFlag: 1, higherIsBetter: true)
    static let sessionDepth = Threshold(target: 0.70, redFlag: nil, higherIsBetter: true)
    static let contextSetup = Threshold(target: 0.60, redFlag: 0.40, higherIsBetter: true)
    static let shareRate = Threshold(target: 0.10, redFlag: 0.05, higherIsBetter: true)
    /// The PRD's target cost per person per month, for the platform-wide page (tenants have their own).
    static let prdTargetCostMicros: Int64 = 2_000_000
    /// The PRD's cost target is $2 with a red flag above $3; a tenant's own target keeps that proportion.
    static func costPerUser(targetMicros: Int64) -> Threshold {
        Threshold(target: Double(targetMicros), redFlag: Double(targetMicros) * 1.5, higherIsBetter: false)
    }

    let kpis: [KPI]

    init(_ counts: ProductMetrics.Counts, targetCostMicros: Int64) {
        let weeks = Double(ProductMetrics.periodDays) / 7
        let days = Double(ProductMetrics.periodDays)
        let cost = Self.costPerUser(targetMicros: targetCostMicros)
        kpis = [
            Self.rate("DAU/MAU", Double(counts.activeUserDays) / days, of: counts.activeUsers, Self.dauOverMau,
                      detail: String(format: "%.1f a day on average, %d in %d days", Double(counts.activeUserDays) / days,
                                     counts.activeUsers, ProductMetrics.periodDays)),
            Self.rate("Week-1 retention", Double(counts.weekOneRetained), of: counts.weekOneCohort, Self.weekOneRetention,
                      detail: "\(counts.weekOneRetained) of \(counts.weekOneCohort) who joined 8–35 days ago came back in their first week"),
            Self.kpi("Sessions per person per week", counts.activeUsers == 0 ? nil : Double(counts.sessions) / Double(counts.activeUsers) / weeks,
                     Self.sessionsPerWeek, format: { String(format: "%.1f", $0) },
                     detail: "\(counts.sessions) sessions by \(counts.activeUsers) active people"),
            Self.rate("Session depth (3+ exchanges)", Double(counts.deepSessions), of: counts.sessions, Self.sessionDepth,
                      detail: "\(counts.deepSessions) of \(counts.sessions) sessions"),
            Self.rate("Context setup rate", Double(counts.returningWithContext), of: counts.returningUsers, Self.contextSetup,
                      detail: "\(counts.returningWithContext) of \(counts.returningUsers) returning people"),
            Self.rate("Share/invite rate", Double(counts.sharers), of: counts.activeUsers, Self.shareRate,
                      detail: "\(counts.sharers) of \(counts.activeUsers) active people made a link"),
            Self.kpi("API cost per person this month",
                     counts.monthActiveUsers == 0 ? nil : Double(counts.monthCostMicros / Int64(counts.monthActiveUsers)), cost,
                     format: { "$" + ConsoleFormat.dollars(Int64($0)) },
                     detail: "$\(ConsoleFormat.dollars(counts.monthCostMicros)) for \(counts.monthActiveUsers) active people"),
        ]
    }

    /// A share (`part` of `whole`) shown as a percentage.
    private static func rate(_ name: String, _ part: Double, of whole: Int, _ threshold: Threshold, detail: String) -> KPI {
        kpi(name, whole == 0 ? nil : part / Double(whole), threshold, format: { String(format: "%.0f%%", $0 * 100) }, detail: detail)
    }

    private static func kpi(_ name: String, _ value: Double?, _ threshold: Threshold, format: (Double) -> String, detail: String) -> KPI {
        let comparison = threshold.higherIsBetter ? ("≥ ", "< ") : ("≤ ", "> ")
        return KPI(
            name: name, value: value.map(format) ?? "—", detail: detail,
            target: comparison.0 + format(threshold.target),
            redFlag: threshold.redFlag.map { comparison.1 + format($0) },
            standing: value.map(threshold.standing) ?? .noData
        )
    }
}
