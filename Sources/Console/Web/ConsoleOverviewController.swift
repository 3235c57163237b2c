import Foundation
import HearthPlatform
import Hummingbird

/// The overview (FR41, Journey 5): the PRD's dashboard KPIs against their targets and red flags, people and
/// crisis counts, and charts of daily actives, cost per day and week-1 retention by sign-up week. Per tenant at
/// `/console/tenants/{tenant}/overview` (every role), and for all tenants at `/console/overview` (platform admins).
public struct ConsoleOverviewController<Context: HearthRequestContextProtocol>: Sendable {
    struct OverviewPage {
        struct CrisisRow {
            let kind: String
            let count: Int
        }

        struct CohortRow {
            let week: String
            let size: Int
            let retained: Int
            let rate: String
        }

        let chrome: Chrome
        let periodDays: Int
        let users: Int
        let newUsers: Int
        let activeUsers: Int
        let crisisTotal: Int
        let kpis: [Scorecard.KPI]
        let crisis: [CrisisRow]
        let dailyActives: BarChart
        let costPerDay: BarChart
        let cohortChart: BarChart
        let cohorts: [CohortRow]
        /// The platform-wide page: tenants' own targets differ, so cost is judged against the PRD's.
        let platformWide: Bool
    }

    /// The kinds a crisis is recorded as (migrations/0014_turn_safety.sql), each shown even at zero.
    static var crisisKinds: [(kind: String, label: String)] {
        [("suicidal", "Suicidal ideation"), ("self_harm", "Self-harm"), ("abuse", "Abuse"), ("harm_to_others", "Harm to others"),
         ("third_party", "Someone else at risk")]
    }

    let metrics: ProductMetrics
    let tenants: TenantStore
    let pages: ConsolePages

    public init(metrics: ProductMetrics, tenants: TenantStore, pages: ConsolePages) {
        self.metrics = metrics
        self.tenants = tenants
        self.pages = pages
    }

    public func addRoutes(signedIn: RouterGroup<Context>, tenant: RouterGroup<Context>) {
        signedIn.get("overview", use: platform)
        tenant.get("overview", use: show)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let tenant = try context.requireTenant()
        let (counts, target) = try await metrics.counts(tenantID: tenant.id)
        return pages.render("console/overview", page(counts, targetCostMicros: target, title: "Overview", context: context, platformWide: false))
    }

    /// Every tenant's counts added up.
    @Sendable func platform(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requirePlatformAdmin()
        var total = ProductMetrics.Counts()
        for tenant in try await tenants.list() {
            total = total + (try await metrics.counts(tenantID: tenant.id).counts)
        }
        return pages.render("console/overview", page(total, targetCostMicros: Scorecard.prdTargetCostMicros, title: "Overview: all tenants",
                                                     context: context, platformWide: true))
    }

    private func page(_ counts: ProductMetrics.Counts, targetCostMicros: Int64, title: String, context: Context, platformWide: Bool) -> OverviewPage {
        let days = ConsoleFormat.lastDays(ProductMetrics.periodDays)
        let weeks = Self.cohortWeeks()
        let cohorts = weeks.map { week in
            let cohort = counts.cohorts[week] ?? .init()
            return (week: week, cohort: cohort, rate: cohort.size == 0 ? 0 : Double(cohort.retained) / Double(cohort.size))
        }
        return OverviewPage(
            chrome: pages.chrome(context, title: title),
            periodDays: ProductMetrics.periodDays,
            users: counts.users, newUsers: counts.newUsers, activeUsers: counts.activeUsers,
            crisisTotal: counts.crisisEvents.values.reduce(0, +),
            kpis: Scorecard(counts, targetCostMicros: targetCostMicros).kpis,
            crisis: Self.crisisKinds.map { .init(kind: $0.label, count: counts.crisisEvents[$0.kind] ?? 0) },
            dailyActives: BarChart(label: "Daily active people, the last \(days.count) days", points: days.map { day in
                let actives = counts.days[day]?.actives ?? 0
                return (day, Double(actives), "\(actives) people")
            }),
            costPerDay: BarChart(label: "Cost per day, the last \(days.count) days", points: days.map { day in
                let cost = counts.days[day]?.costMicros ?? 0
                return (day, Double(cost), "$" + ConsoleFormat.dollars(cost))
            }),
            cohortChart: BarChart(label: "Week-1 retention by sign-up week", points: cohorts.map {
                ("week of \($0.week)", $0.rate, $0.cohort.size == 0 ? "no sign-ups" : String(format: "%.0f%%", $0.rate * 100))
            }),
            cohorts: cohorts.reversed().map {
                .init(week: $0.week, size: $0.cohort.size, retained: $0.cohort.retained,
                      rate: $0.cohort.size == 0 ? "—" : String(format: "%.0f%%", $0.rate * 100))
            },
            platformWide: platformWide
        )
    }

    /// The Mondays of the cohorts ``ProductMetrics`` reads, oldest first: the last is the Monday of the week 14 days ago.
    static func cohortWeeks(today: Date = Date()) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let anchor = calendar.date(byAdding: .day, value: -14, to: today)!
        let sinceMonday = (calendar.component(.weekday, from: anchor) + 5) % 7
        let lastMonday = calendar.date(byAdding: .day, value: -sinceMonday, to: anchor)!
        let format = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        return (0..<ProductMetrics.cohortWeeks).reversed().map {
            calendar.date(byAdding: .day, value: -7 * $0, to: lastMonday)!.formatted(format)
        }
    }
}
