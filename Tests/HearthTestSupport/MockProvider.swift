import Coaching
import HearthPlatform
import LLM

extension TestHearth {
    /// Points the tenant's primary (and optionally fallback) provider at a mock on `port`.
    public func useMock(_ tenant: Tenant, port: Int, primary: String = "openai", model: String = "gpt-4o-mini", fallback: String? = nil) async throws {
        try await withAppDatabase { database in
            try await database.withTenant(tenant.id) { connection in
                let store = ProviderSettingsStore(logger: database.logger)
                try await store.save(Self.setting(.primary, kind: primary, model: model, port: port), tenantID: tenant.id, on: connection)
                if let fallback {
                    try await store.save(Self.setting(.fallback, kind: fallback, model: "claude-3-5-haiku-latest", port: port), tenantID: tenant.id, on: connection)
                }
            }
        }
    }

    public static func setting(_ position: ProviderSetting.Position, kind: String, model: String, port: Int) -> ProviderSetting {
        ProviderSetting(position: position, kind: kind, model: model,
                        baseURL: kind == "openai" ? "http://127.0.0.1:\(port)/v1" : "http://127.0.0.1:\(port)", apiKeyReference: nil)
    }
}
