import Foundation
import HearthPlatform
import Hummingbird

/// The console's pages: templates under `templates/console/` in the `console-layout` frame, filled from typed
/// view models (Mustache escapes every value), with the same strict security headers as the public pages and no
/// scripts at all.
public struct ConsolePages: Sendable {
    public static let templates = [
        "console-layout", "console-chart", "console/sign-in", "console/home", "console/billing", "console/costs", "console/users",
        "console/user", "console/personas", "console/persona", "console/audit", "console/error", "console/overview", "console/domains",
        "console/domain", "console/tenant-new", "console/settings",
    ]
    public static let files = ["console.css"]

    let html: HTMLPages
    let security: ConsoleSecurity

    public init(html: HTMLPages, security: ConsoleSecurity) {
        self.html = html
        self.security = security
    }

    func render(_ template: String, _ view: Any, status: HTTPResponse.Status = .ok, framing: HTMLPages.Framing = .forbidden) -> Response {
        html.response(template, view, status: status, headers: [.cacheControl: "no-store"], framing: framing)
    }

    /// The frame of a signed-in page: who is signed in, the sign-out form's CSRF token, the tenant's sections.
    func chrome<Context: HearthRequestContextProtocol>(_ context: Context, title: String, notice: String? = nil, problem: String? = nil) -> Chrome {
        let session = context.operatorSession
        let tenant = context.tenant.map { tenant in
            Chrome.TenantNav(name: tenant.name, slug: tenant.slug, sections: Self.sections(tenant, platformAdmin: session?.account.role == .platformAdmin))
        }
        return Chrome(title: title, stylesheet: "/assets/console.css", operatorEmail: session?.account.email,
                      role: session?.account.role.rawValue, csrf: session.map(security.csrfToken(for:)), tenant: tenant,
                      notice: notice, problem: problem)
    }

    /// A tenant's pages; its settings only for platform admins, who alone may change them.
    static func sections(_ tenant: Tenant, platformAdmin: Bool) -> [Chrome.Link] {
        [
            .init(title: "Overview", path: "/console/tenants/\(tenant.slug)/overview"),
            .init(title: "Costs", path: "/console/tenants/\(tenant.slug)/costs"),
            .init(title: "Rate limits and budgets", path: "/console/tenants/\(tenant.slug)/billing"),
            .init(title: "Users", path: "/console/tenants/\(tenant.slug)/users"),
            .init(title: "Persona moderation", path: "/console/tenants/\(tenant.slug)/personas"),
            .init(title: "Coaching domains", path: "/console/tenants/\(tenant.slug)/domains"),
            .init(title: "Audit log", path: "/console/tenants/\(tenant.slug)/audit"),
        ] + (platformAdmin ? [.init(title: "Settings", path: "/console/tenants/\(tenant.slug)/settings")] : [])
    }
}

/// What every console page shows around its content.
struct Chrome {
    struct Link {
        let title: String
        let path: String
    }

    struct TenantNav {
        let name: String
        let slug: String
        let sections: [Link]
    }

    let title: String
    let stylesheet: String
    let operatorEmail: String?
    let role: String?
    let csrf: String?
    let tenant: TenantNav?
    /// A change went through / a form was refused (shown in a live region).
    let notice: String?
    let problem: String?
}

struct ErrorPage {
    let chrome: Chrome
    let status: Int
    let message: String
}
