import Billing
import Foundation
import HearthPlatform

/// The view of `/console/tenants/{tenant}/billing`: every value as the form shows it.
struct BillingPage {
    struct PlanRow {
        let code: String
        let name: String
        let productIds: String
        let requestsPerMinute: Int
        let tokensPerDay: Int64
        let concurrentStreams: Int
        let monthlyBudget: String
        let economyAtPercent: Int
    }

    struct AppStoreView {
        let configured: Bool
        let bundleId: String
        let appAppleId: String
        let production: Bool
        let sandbox: Bool
        let rootCertificates: String
        let roots: String
    }

    struct LimitedRow {
        let limit: String
        let subject: String
        let used: Int64
        let quota: Int64
        let resetsIn: String
    }

    let chrome: Chrome
    /// Admins see forms; everyone else the same values, read only.
    let canChange: Bool
    let trialDays: String
    let trialSessions: String
    let targetCost: String
    let economyModel: String
    let limits: TenantLimits
    let plans: [PlanRow]
    let appStore: AppStoreView
    let limited: [LimitedRow]

    init(chrome: Chrome, canChange: Bool, settings: BillingSettings, limits: TenantLimits, plans: [Plan], appStore: AppStoreSettings?,
         limited: [LimitedNow]) {
        self.chrome = chrome
        self.canChange = canChange
        trialDays = settings.trialDays.map(String.init) ?? ""
        trialSessions = settings.trialSessions.map(String.init) ?? ""
        targetCost = ConsoleFormat.dollars(settings.targetCostMicros)
        economyModel = settings.economyModel ?? ""
        self.limits = limits
        self.plans = plans.map {
            PlanRow(code: $0.code, name: $0.name, productIds: $0.productIds.joined(separator: " "), requestsPerMinute: $0.requestsPerMinute,
                    tokensPerDay: $0.tokensPerDay, concurrentStreams: $0.concurrentStreams, monthlyBudget: ConsoleFormat.dollars($0.monthlyBudgetMicros),
                    economyAtPercent: $0.economyAtPercent)
        }
        self.appStore = AppStoreView(
            configured: appStore != nil, bundleId: appStore?.bundleId ?? "", appAppleId: appStore?.appAppleId.map(String.init) ?? "",
            production: appStore?.environments.contains("Production") ?? false, sandbox: appStore?.environments.contains("Sandbox") ?? false,
            rootCertificates: appStore?.rootCertificatesPEM ?? "",
            roots: appStore.map { $0.rootCertificates.isEmpty ? "Apple Root CA - G3" : "\($0.rootCertificates.count) of the tenant's own" } ?? "—"
        )
        self.limited = limited.map {
            LimitedRow(limit: $0.limit, subject: $0.subject, used: $0.used, quota: $0.quota, resetsIn: ConsoleFormat.duration($0.resetSeconds))
        }
    }

    static func savedNotice(_ what: String) -> String? {
        switch what {
        case "app-store": "The App Store settings are saved."
        case "settings": "The trial and cost settings are saved."
        case "limits": "The tenant's limits are saved."
        case "plan": "The plan is saved. It applies to the next request on every server."
        default: nil
        }
    }
}
