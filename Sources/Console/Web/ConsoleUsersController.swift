import Accounts
import Billing
import Foundation
import HearthPlatform
import Hummingbird

/// `/console/tenants/{tenant}/users`: support (FR46). Find a person by id or email, see their account, sessions,
/// subscription, usage and rate-limit state, and delete the account when they ask — never their conversations,
/// which the console has no way to read. Every role reads; deleting is an admin's, audited.
public struct ConsoleUsersController<Context: HearthRequestContextProtocol>: Sendable {
    struct SearchPage {
        let chrome: Chrome
        let query: String
    }

    struct UserPage {
        struct SessionRow {
            let method: String
            let createdAt: String
            let lastUsedAt: String
            let state: String
        }

        struct WindowRow {
            let limit: String
            let used: Int64
            let quota: Int64
            let resetsIn: String
        }

        struct DayRow {
            let day: String
            let cost: String
            let turns: Int
            let tokens: Int64
        }

        struct RecordRow {
            let at: String
            let model: String
            let inputTokens: Int
            let outputTokens: Int
            let estimated: Bool
            let cost: String
            let firstTokenMs: String
            let totalMs: Int
            let outcome: String
        }

        let chrome: Chrome
        let canDelete: Bool
        let id: String
        let createdAt: String
        let kind: String
        let email: String?
        let signInMethods: String
        let sessions: [SessionRow]
        let status: String
        let canCoach: Bool
        let plan: String
        let productId: String?
        let expiresAt: String?
        let autoRenew: String?
        let trial: String?
        let tokensToday: Int64
        let tokensPerDay: Int64
        let requestsPerMinute: Int
        let concurrentStreams: Int
        let windows: [WindowRow]
        let monthCost: String
        let days: [DayRow]
        let records: [RecordRow]
    }

    struct DeleteForm: Decodable {
        let confirm: String?
    }

    let accounts: AccountService
    let reports: CostReports
    let database: Database
    let audit: AuditLog
    let pages: ConsolePages

    public init(accounts: AccountService, database: Database, audit: AuditLog, pages: ConsolePages) {
        self.accounts = accounts
        self.reports = CostReports(database: database)
        self.database = database
        self.audit = audit
        self.pages = pages
    }

    public func addRoutes(to tenant: RouterGroup<Context>) {
        tenant.get("users", use: search)
        tenant.get("users/:userID", use: show)
        tenant.post("users/:userID/delete", use: delete)
    }

    /// The search form; a query that finds someone goes to their page.
    @Sendable func search(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let tenant = try context.requireTenant()
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        var problem: String?
        if !query.isEmpty {
            let found: UUID?
            if let id = UUID(uuidString: query) {
                found = try await accounts.exists(tenant: tenant, userID: id) ? id : nil
            } else if query.contains("@") {
                found = try await accounts.find(tenant: tenant, email: query)
            } else {
                throw APIError.validation("Search by a user id (a UUID) or an email address.")
            }
            if let found { return .redirect(to: "/console/tenants/\(tenant.slug)/users/\(found.uuidString.lowercased())") }
            problem = "No one in \(tenant.name) has that id or email."
        }
        let notice = request.uri.queryParameters.get("deleted") == nil ? nil : "The account and everything it owned are deleted."
        return pages.render("console/users", SearchPage(chrome: pages.chrome(context, title: "Users", notice: notice, problem: problem), query: query),
                            status: problem == nil ? .ok : .notFound)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireOperator(.view)
        let tenant = try context.requireTenant()
        let userID = try Self.userID(context)
        guard let (account, sessions) = try await accounts.support(tenant: tenant, userID: userID),
              let usage = try await reports.usage(tenantID: tenant.id, userID: userID, records: 50)
        else { throw APIError.notFound("No such user.") }
        let windows = try await database.withTenant(tenant.id) { [self] connection in
            try await RateLimit.openWindows(subject: userID.uuidString.lowercased(), on: connection, logger: database.logger)
        }
        let subscription = usage.subscription
        let page = UserPage(
            chrome: pages.chrome(context, title: "User " + userID.uuidString.lowercased().prefix(8)),
            canDelete: session.may(.administer, in: tenant.id),
            id: userID.uuidString.lowercased(), createdAt: ConsoleFormat.timestamp(account.createdAt),
            kind: account.isAnonymous ? "anonymous" : "identified", email: account.email,
            signInMethods: account.signInMethods.isEmpty ? "none (anonymous)" : account.signInMethods.joined(separator: ", "),
            sessions: sessions.map {
                .init(method: $0.method, createdAt: ConsoleFormat.timestamp($0.createdAt), lastUsedAt: ConsoleFormat.timestamp($0.lastUsedAt),
                      state: $0.revokedAt == nil ? "live" : "ended (\($0.revokedReason ?? "revoked"))")
            },
            status: subscription.status.rawValue, canCoach: subscription.canCoach,
            plan: "\(subscription.plan.name) (\(subscription.plan.code))", productId: subscription.productId,
            expiresAt: subscription.expiresAt.map(ConsoleFormat.timestamp), autoRenew: subscription.autoRenew.map { $0 ? "on" : "off" },
            trial: subscription.trial.map(Self.trial),
            tokensToday: subscription.limits.tokensUsedToday, tokensPerDay: subscription.limits.tokensPerDay,
            requestsPerMinute: subscription.limits.requestsPerMinute, concurrentStreams: subscription.limits.concurrentStreams,
            windows: windows.map { .init(limit: $0.name, used: $0.used, quota: $0.quota, resetsIn: ConsoleFormat.duration($0.reset)) },
            monthCost: ConsoleFormat.dollars(usage.monthCostMicros),
            days: usage.days.map { .init(day: $0.day, cost: ConsoleFormat.dollars($0.costMicros), turns: $0.turns, tokens: $0.inputTokens + $0.outputTokens) },
            records: usage.records.map {
                .init(at: ConsoleFormat.timestamp($0.createdAt), model: "\($0.provider) \($0.model)", inputTokens: $0.inputTokens,
                      outputTokens: $0.outputTokens, estimated: $0.estimated, cost: ConsoleFormat.preciseDollars($0.costMicros),
                      firstTokenMs: $0.timeToFirstTokenMs.map(String.init) ?? "–", totalMs: $0.totalMs, outcome: $0.outcome)
            }
        )
        return pages.render("console/user", page)
    }

    /// Deletes the account on the person's request: an admin's change, confirmed on the form, audited.
    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requireOperator(.administer)
        let form = try await ConsoleForm.decode(DeleteForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let userID = try Self.userID(context)
        guard form.confirm == "delete" else {
            throw APIError.validation("Type delete in the confirmation box to delete the account.")
        }
        try await accounts.delete(tenant: tenant, userID: userID, audit: Audited(log: audit, author: author))
        return .redirect(to: "/console/tenants/\(tenant.slug)/users?deleted=1")
    }

    static func userID(_ context: Context) throws -> UUID {
        guard let id = context.parameters.get("userID", as: UUID.self) else { throw APIError.notFound("No such user.") }
        return id
    }

    static func trial(_ trial: SubscriptionView.Trial) -> String {
        guard let started = trial.startedAt else { return "not started (it starts with the first coached message)" }
        var parts = ["started \(ConsoleFormat.timestamp(started))"]
        if let days = trial.daysRemaining { parts.append("\(days) days left") }
        if let limit = trial.sessionsLimit { parts.append("\(trial.sessionsUsed) of \(limit) sessions used") }
        return parts.joined(separator: ", ")
    }
}
