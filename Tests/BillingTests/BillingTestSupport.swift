import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting

/// An admin of the tenant and their operator token, for changing policies through the operator API.
func adminToken(_ hearth: TestHearth, _ client: any TestClientProtocol, tenant: Tenant) async throws -> String {
    let email = "admin-\(UUID().uuidString.prefix(6).lowercased())@\(tenant.slug).example"
    try await hearth.createOperator(email, role: .tenantAdmin, tenantID: tenant.id)
    return try await client.operatorToken(email)
}

extension TestClientProtocol {
    /// A coached message sent as JSON (the whole answer once it is complete).
    func coach(_ coachee: Coachee, _ content: String = "I keep putting off the conversation with my manager.") async throws -> APIResponse {
        try await call(.post, coachee.messagesPath, clientKey: coachee.key, token: coachee.token, json: ["content": content])
    }

    /// Replaces one of the tenant's plans through the operator API; returns the status.
    @discardableResult
    func savePlan(_ tenant: Tenant, code: String = "trial", token: String, requestsPerMinute: Int = 60, tokensPerDay: Int = 60_000,
                  concurrentStreams: Int = 2, monthlyBudgetMicros: Int = 1_000_000, economyAtPercent: Int = 80) async throws -> APIResponse {
        try await call(.put, "/operator/v1/tenants/\(tenant.slug)/billing/plans/\(code)", token: token, json: [
            "name": code == "trial" ? "Free trial" : code.capitalized, "requestsPerMinute": requestsPerMinute,
            "tokensPerDay": tokensPerDay, "concurrentStreams": concurrentStreams, "monthlyBudgetMicros": monthlyBudgetMicros,
            "economyAtPercent": economyAtPercent,
        ])
    }
}

/// `Retry-After` (HTTPTypes and HearthPlatform both name it, so the tests spell it out).
let retryAfterField = HTTPField.Name("Retry-After")!
