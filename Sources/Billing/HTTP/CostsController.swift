import Foundation
import HearthPlatform
import Hummingbird

/// `/operator/v1/tenants/{tenant}/costs` and `…/users/{id}/usage`: real-time cost per day, model and person
/// (FR42), and one person's usage records for support — never their content. Every role may read them.
public struct CostsController<Context: HearthRequestContextProtocol>: Sendable {
    let reports: CostReports

    public init(reports: CostReports) {
        self.reports = reports
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("costs", use: costs)
        group.get("users/:userID/usage", use: usage)
    }

    @Sendable func costs(_ request: Request, context: Context) async throws -> CostReport {
        _ = try context.requireOperator(.view)
        let days = try CostReports.days(query: request.uri.queryParameters.get("days"))
        return try await reports.report(tenantID: context.requireTenant().id, days: days)
    }

    @Sendable func usage(_ request: Request, context: Context) async throws -> UserUsage {
        _ = try context.requireOperator(.view)
        guard let userID = context.parameters.get("userID", as: UUID.self) else {
            throw APIError.notFound("No such user.")
        }
        guard let usage = try await reports.usage(tenantID: context.requireTenant().id, userID: userID) else {
            throw APIError.notFound("No such user.")
        }
        return usage
    }
}
