import Billing
import Foundation
import HearthPlatform
import Hummingbird

/// `/console/tenants/{tenant}/costs`: cost per day (a chart and a table), per model and per person this month, the
/// cost per active person against the tenant's target (FR42), and the same as CSV. Sums from the usage ledger;
/// no content. Every role reads.
public struct ConsoleCostsController<Context: HearthRequestContextProtocol>: Sendable {
    struct CostsPage {
        struct Choice {
            let days: Int
            let selected: Bool
        }

        struct DayRow {
            let day: String
            let cost: String
            let turns: Int
            let users: Int
            let tokens: Int64
        }

        struct ModelRow {
            let provider: String
            let model: String
            let cost: String
            let turns: Int
        }

        struct SpenderRow {
            let userId: String
            let cost: String
            let turns: Int
            let tokens: Int64
        }

        let chrome: Chrome
        let days: Int
        let choices: [Choice]
        let month: String
        let monthCost: String
        let activeUsers: Int
        let costPerUser: String
        let target: String
        let overTarget: Bool
        let chart: BarChart
        let dayRows: [DayRow]
        let models: [ModelRow]
        let spenders: [SpenderRow]
    }

    static var dayChoices: [Int] { [7, 30, 90] }

    let reports: CostReports
    let pages: ConsolePages

    public init(reports: CostReports, pages: ConsolePages) {
        self.reports = reports
        self.pages = pages
    }

    public func addRoutes(to tenant: RouterGroup<Context>) {
        tenant.get("costs", use: show)
        tenant.get("costs.csv", use: csv)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let days = try CostReports.days(query: request.uri.queryParameters.get("days"))
        let report = try await reports.report(tenantID: context.requireTenant().id, days: days)
        let series = Self.everyDay(report.days, last: days)
        let page = CostsPage(
            chrome: pages.chrome(context, title: "Costs"),
            days: days, choices: Self.dayChoices.map { .init(days: $0, selected: $0 == days) },
            month: String(report.month.month.prefix(7)), monthCost: ConsoleFormat.dollars(report.month.costMicros),
            activeUsers: report.month.activeUsers, costPerUser: ConsoleFormat.dollars(report.month.costPerUserMicros),
            target: ConsoleFormat.dollars(report.month.targetCostMicros),
            overTarget: report.month.overTarget,
            chart: BarChart(label: "Cost per day, the last \(days) days",
                            points: series.map { ($0.day, Double($0.costMicros), "$" + ConsoleFormat.dollars($0.costMicros)) }),
            dayRows: report.days.map {
                .init(day: $0.day, cost: ConsoleFormat.dollars($0.costMicros), turns: $0.turns, users: $0.users,
                      tokens: $0.inputTokens + $0.outputTokens)
            },
            models: report.models.map { .init(provider: $0.provider, model: $0.model, cost: ConsoleFormat.dollars($0.costMicros), turns: $0.turns) },
            spenders: report.topUsers.map {
                .init(userId: $0.userId.uuidString.lowercased(), cost: ConsoleFormat.dollars($0.costMicros), turns: $0.turns, tokens: $0.tokens)
            }
        )
        return pages.render("console/costs", page)
    }

    /// The per-day table as CSV (RFC 4180), oldest first, a row for every day.
    @Sendable func csv(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let days = try CostReports.days(query: request.uri.queryParameters.get("days"))
        let tenant = try context.requireTenant()
        let recorded = try await reports.days(tenantID: tenant.id, count: days)
        var text = "day,cost_usd,turns,active_users,input_tokens,output_tokens\r\n"
        for day in Self.everyDay(recorded, last: days) {
            text += "\(day.day),\(ConsoleFormat.dollars(day.costMicros)),\(day.turns),\(day.users),\(day.inputTokens),\(day.outputTokens)\r\n"
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                      .contentDisposition: "attachment; filename=\"\(tenant.slug)-costs-\(days)d.csv\""],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// The report's days (newest first, only days with usage) as every one of the last `count` days, oldest first.
    static func everyDay(_ days: [CostReport.Day], last count: Int, today: Date = Date()) -> [CostReport.Day] {
        let byDay = Dictionary(days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        return ConsoleFormat.lastDays(count, today: today).map { byDay[$0] ?? .empty($0) }
    }
}
