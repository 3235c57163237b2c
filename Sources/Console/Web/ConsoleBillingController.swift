import Billing
import Foundation
import HearthPlatform
import Hummingbird

/// `/console/tenants/{tenant}/billing`: rate limits, budgets and plans (FR45), the trial and cost settings, the
/// App Store settings, and who is being limited now. Every role reads; admins change, each change audited in its
/// own transaction (the same stores as the operator API). A refused form shows the page again with the reason.
public struct ConsoleBillingController<Context: HearthRequestContextProtocol>: Sendable {
    struct AppStoreForm: Decodable {
        let bundleId: String
        let appAppleId: String?
        let environments: [String]?
        let rootCertificates: String?
    }

    struct SettingsForm: Decodable {
        let trialDays: String?
        let trialSessions: String?
        let targetCost: String
        let economyModel: String?
    }

    struct LimitsForm: Decodable {
        let requestsPerSecond: String
        let signupsPerHour: String
        let loginsPerMinute: String
    }

    struct PlanForm: Decodable {
        let name: String
        let productIds: String?
        let requestsPerMinute: String
        let tokensPerDay: String
        let concurrentStreams: String
        let monthlyBudget: String
        let economyAtPercent: String
    }

    let plans: PlanStore
    let appStore: AppStoreSettingsStore
    let database: Database
    let audit: AuditLog
    let pages: ConsolePages

    public init(database: Database, audit: AuditLog, pages: ConsolePages) {
        self.plans = PlanStore(database: database)
        self.appStore = AppStoreSettingsStore(database: database)
        self.database = database
        self.audit = audit
        self.pages = pages
    }

    /// `tenant`: `/console/tenants/:tenant`.
    public func addRoutes(to tenant: RouterGroup<Context>) {
        tenant.get("billing", use: show)
        tenant.post("billing/app-store", use: saveAppStore)
        tenant.post("billing/settings", use: saveSettings)
        tenant.post("billing/limits", use: saveLimits)
        tenant.post("billing/plans/:code", use: savePlan)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let saved = request.uri.queryParameters.get("saved").flatMap(BillingPage.savedNotice)
        return try await page(context, notice: saved, problem: nil, status: .ok)
    }

    @Sendable func saveAppStore(_ request: Request, context: Context) async throws -> Response {
        try await change(request, context, AppStoreForm.self, saved: "app-store") { form, tenantID, audited in
            let settings = AppStoreSettings(bundleId: form.bundleId.trimmingCharacters(in: .whitespaces),
                                            appAppleId: try Self.optionalNumber(form.appAppleId, "App Apple ID"),
                                            environments: form.environments ?? [],
                                            rootCertificates: try AppStoreSettings.certificates(fromPEM: form.rootCertificates ?? ""))
            _ = try await appStore.save(settings, tenantID: tenantID, audit: audited)
        }
    }

    @Sendable func saveSettings(_ request: Request, context: Context) async throws -> Response {
        try await change(request, context, SettingsForm.self, saved: "settings") { form, tenantID, audited in
            guard let target = ConsoleFormat.micros(form.targetCost) else {
                throw APIError.validation("The target cost must be an amount in dollars, such as 2.00.")
            }
            let economy = form.economyModel?.trimmingCharacters(in: .whitespaces)
            let settings = BillingSettings(trialDays: try Self.optionalNumber(form.trialDays, "Trial days"),
                                           trialSessions: try Self.optionalNumber(form.trialSessions, "Trial sessions"),
                                           targetCostMicros: target, economyModel: economy?.isEmpty == false ? economy : nil)
            _ = try await plans.save(settings, tenantID: tenantID, audit: audited)
        }
    }

    @Sendable func saveLimits(_ request: Request, context: Context) async throws -> Response {
        try await change(request, context, LimitsForm.self, saved: "limits") { form, tenantID, audited in
            let limits = TenantLimits(requestsPerSecond: try Self.number(form.requestsPerSecond, "Requests per second"),
                                      signupsPerHourPerAddress: try Self.number(form.signupsPerHour, "Sign-ups per hour"),
                                      loginsPerMinutePerAddress: try Self.number(form.loginsPerMinute, "Sign-ins per minute"))
            _ = try await plans.save(limits, tenantID: tenantID, audit: audited)
        }
    }

    @Sendable func savePlan(_ request: Request, context: Context) async throws -> Response {
        let code = try context.parameters.require("code")
        return try await change(request, context, PlanForm.self, saved: "plan") { form, tenantID, audited in
            guard let budget = ConsoleFormat.micros(form.monthlyBudget) else {
                throw APIError.validation("The monthly budget must be an amount in dollars, such as 4.00.")
            }
            let products = (form.productIds ?? "").split(whereSeparator: { $0 == " " || $0 == "," || $0.isNewline }).map(String.init)
            let plan = Plan(code: code, name: form.name.trimmingCharacters(in: .whitespaces), productIds: products,
                            requestsPerMinute: try Self.number(form.requestsPerMinute, "Requests per minute"),
                            tokensPerDay: Int64(try Self.number(form.tokensPerDay, "Tokens per day")),
                            concurrentStreams: try Self.number(form.concurrentStreams, "Concurrent answers"),
                            monthlyBudgetMicros: budget, economyAtPercent: try Self.number(form.economyAtPercent, "Economy model from"))
            _ = try await plans.save(plan, tenantID: tenantID, audit: audited)
        }
    }

    /// A change by an admin: the form (CSRF checked), then back to the page with a notice, or the page again with
    /// the reason the change was refused (422).
    private func change<Form: Decodable>(_ request: Request, _ context: Context, _ type: Form.Type, saved: String,
                                         _ apply: (Form, UUID, Audited) async throws -> Void) async throws -> Response {
        let author = try context.requireOperator(.administer)
        let form = try await ConsoleForm.decode(type, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        do {
            try await apply(form, tenant.id, Audited(log: audit, author: author))
        } catch let error as APIError where error.status == .unprocessableContent {
            return try await page(context, notice: nil, problem: error.message, status: .unprocessableContent)
        }
        return .redirect(to: "/console/tenants/\(tenant.slug)/billing?saved=\(saved)")
    }

    private func page(_ context: Context, notice: String?, problem: String?, status: HTTPResponse.Status) async throws -> Response {
        let tenant = try context.requireTenant()
        let (settings, limits, plans) = try await plans.policies(tenantID: tenant.id)
        let view = BillingPage(
            chrome: pages.chrome(context, title: "Rate limits and budgets", notice: notice, problem: problem),
            canChange: try context.requireOperatorSession().account.may(.administer, in: tenant.id),
            settings: settings, limits: limits, plans: plans, appStore: try await appStore.settings(tenantID: tenant.id),
            limited: try await LimitedNow.read(tenantID: tenant.id, database: database)
        )
        return pages.render("console/billing", view, status: status)
    }

    static func number(_ text: String, _ label: String) throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw APIError.validation("\(label) must be a whole number.")
        }
        return value
    }

    static func optionalNumber<Number: FixedWidthInteger>(_ text: String?, _ label: String) throws -> Number? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Number(text) else { throw APIError.validation("\(label) must be a whole number, or empty.") }
        return value
    }
}
