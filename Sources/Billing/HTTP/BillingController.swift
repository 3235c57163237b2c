import Foundation
import HearthPlatform
import Hummingbird

/// `/operator/v1/tenants/{tenant}/billing…`: the tenant's trial and cost settings, its own rate limits and its
/// plans' policies (FR45, NFR18). Every role may read them; changing them takes an admin. A change applies to the
/// next request on every instance: admission reads the policies in the round trip it already makes.
public struct BillingController<Context: HearthRequestContextProtocol>: Sendable {
    struct Policies: ResponseEncodable {
        let settings: BillingSettings
        let limits: TenantLimits
        let plans: [Plan]
    }

    /// A plan's policy as sent: the code is the path's.
    struct PlanBody: Decodable {
        let name: String
        let productIds: [String]?
        let requestsPerMinute: Int
        let tokensPerDay: Int64
        let concurrentStreams: Int
        let monthlyBudgetMicros: Int64
        let economyAtPercent: Int?
    }

    let plans: PlanStore
    let appStore: AppStoreSettingsStore
    let audit: AuditLog

    public init(plans: PlanStore, appStore: AppStoreSettingsStore, audit: AuditLog) {
        self.plans = plans
        self.appStore = appStore
        self.audit = audit
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("billing", use: show)
        group.put("billing/settings", use: saveSettings)
        group.put("billing/limits", use: saveLimits)
        group.put("billing/plans/:code", use: savePlan)
        group.get("billing/app-store", use: showAppStore)
        group.put("billing/app-store", use: saveAppStore)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Policies {
        _ = try context.requireOperator(.view)
        let (settings, limits, plans) = try await plans.policies(tenantID: context.requireTenant().id)
        return Policies(settings: settings, limits: limits, plans: plans)
    }

    @Sendable func saveSettings(_ request: Request, context: Context) async throws -> BillingSettings {
        let author = try context.requireOperator(.administer)
        let body = try await request.decode(as: BillingSettings.self, context: context)
        return try await plans.save(body, tenantID: context.requireTenant().id, audit: Audited(log: audit, author: author))
    }

    @Sendable func saveLimits(_ request: Request, context: Context) async throws -> TenantLimits {
        let author = try context.requireOperator(.administer)
        let body = try await request.decode(as: TenantLimits.self, context: context)
        return try await plans.save(body, tenantID: context.requireTenant().id, audit: Audited(log: audit, author: author))
    }

    @Sendable func savePlan(_ request: Request, context: Context) async throws -> Plan {
        let author = try context.requireOperator(.administer)
        let code = try context.parameters.require("code")
        let body = try await request.decode(as: PlanBody.self, context: context)
        let plan = Plan(code: code, name: body.name, productIds: body.productIds ?? [], requestsPerMinute: body.requestsPerMinute,
                        tokensPerDay: body.tokensPerDay, concurrentStreams: body.concurrentStreams,
                        monthlyBudgetMicros: body.monthlyBudgetMicros, economyAtPercent: body.economyAtPercent ?? 80)
        return try await plans.save(plan, tenantID: context.requireTenant().id, audit: Audited(log: audit, author: author))
    }

    /// How the tenant's signed App Store data is verified; 404 until configured.
    @Sendable func showAppStore(_ request: Request, context: Context) async throws -> AppStoreSettings {
        _ = try context.requireOperator(.view)
        guard let settings = try await appStore.settings(tenantID: context.requireTenant().id) else {
            throw APIError.notFound("The App Store is not configured for this tenant.")
        }
        return settings
    }

    @Sendable func saveAppStore(_ request: Request, context: Context) async throws -> AppStoreSettings {
        let author = try context.requireOperator(.administer)
        let body = try await request.decode(as: AppStoreSettings.self, context: context)
        return try await appStore.save(body, tenantID: context.requireTenant().id, audit: Audited(log: audit, author: author))
    }
}

extension AppStoreSettings: ResponseEncodable {}
extension BillingSettings: ResponseEncodable {}
extension Plan: ResponseEncodable {}
