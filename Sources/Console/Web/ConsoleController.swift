import Foundation
import HearthPlatform
import Hummingbird
import PostgresNIO

/// `/console`: the tenants an operator works in (every one, for a platform admin), and each tenant's audit log.
public struct ConsoleController<Context: HearthRequestContextProtocol>: Sendable {
    struct HomePage {
        struct TenantTile {
            let name: String
            let slug: String
        }

        let chrome: Chrome
        let tenants: [TenantTile]
        /// Platform admins also see every tenant's figures added up.
        let platformAdmin: Bool
    }

    struct AuditPage {
        struct Row {
            let at: String
            let operatorEmail: String
            let action: String
            let detail: String
        }

        let chrome: Chrome
        let entries: [Row]
    }

    let tenants: TenantStore
    let audit: AuditLog
    let client: PostgresClient
    let pages: ConsolePages

    public init(tenants: TenantStore, audit: AuditLog, client: PostgresClient, pages: ConsolePages) {
        self.tenants = tenants
        self.audit = audit
        self.client = client
        self.pages = pages
    }

    /// `signedIn`: `/console` behind the session; `tenant`: `/console/tenants/:tenant` for operators who work there.
    public func addRoutes(signedIn: RouterGroup<Context>, tenant: RouterGroup<Context>) {
        signedIn.get(use: home)
        tenant.get(use: tenantHome)
        tenant.get("audit", use: auditLog)
    }

    @Sendable func home(_ request: Request, context: Context) async throws -> Response {
        let account = try context.requireOperatorSession().account
        let visible = try await tenants.list().filter { account.may(.view, in: $0.id) }
        return pages.render("console/home", HomePage(chrome: pages.chrome(context, title: "Tenants"),
                                                     tenants: visible.map { HomePage.TenantTile(name: $0.name, slug: $0.slug) },
                                                     platformAdmin: account.role == .platformAdmin))
    }

    @Sendable func tenantHome(_ request: Request, context: Context) async throws -> Response {
        .redirect(to: "/console/tenants/\(try context.requireTenant().slug)/overview")
    }

    @Sendable func auditLog(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let entries = try await audit.entries(tenantID: context.requireTenant().id, on: client)
        let rows = entries.map {
            AuditPage.Row(at: ConsoleFormat.timestamp($0.at), operatorEmail: $0.operatorEmail, action: $0.action, detail: $0.detail)
        }
        return pages.render("console/audit", AuditPage(chrome: pages.chrome(context, title: "Audit log"), entries: rows))
    }
}

enum ConsoleFormat {
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).dateTimeSeparator(.space))
    }

    /// The last `count` UTC days up to `today` ("YYYY-MM-DD"), oldest first.
    static func lastDays(_ count: Int, today: Date = Date()) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let format = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        return (0..<count).reversed().map { calendar.date(byAdding: .day, value: -$0, to: today)!.formatted(format) }
    }

    /// Seconds until a limit resets, e.g. "3 min".
    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min"
        default: "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        }
    }

    /// Micro-dollars as dollars, e.g. 2000000 → "2.00".
    static func dollars(_ micros: Int64) -> String {
        String(format: "%.2f", Double(micros) / 1_000_000)
    }

    /// Micro-dollars to the micro-dollar, for one usage record, e.g. 1234 → "0.001234".
    static func preciseDollars(_ micros: Int64) -> String {
        String(format: "%.6f", Double(micros) / 1_000_000)
    }

    /// Dollars typed in a form as micro-dollars; `nil` when it is not a non-negative amount.
    static func micros(_ dollars: String) -> Int64? {
        guard let value = Double(dollars.trimmingCharacters(in: .whitespaces)), value >= 0, value < 1_000_000 else { return nil }
        return Int64((value * 1_000_000).rounded())
    }
}
