import Coaching
import HearthPlatform
import LLM
import HearthApp
import MockLLM

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

/// A fresh Hearth with one tenant answering through a mock LLM on loopback (as primary, and as fallback of the
/// `fallback` kind if given). `body` gets the mock's controls, Hearth, the tenant's client key and the mock's port.
public func withMockedHearth<T: Sendable>(
    _ knobs: MockKnobs = .init(responseTokens: 8), fallback: String? = nil, tenant settings: TenantStore.Settings = .init(),
    config customise: (inout Config) -> Void = { _ in },
    _ body: @Sendable (MockLLMControls, TestHearth, String, Int) async throws -> T
) async throws -> T {
    let hearth = try await TestHearth.make(customise)
    return try await withMockLLM(knobs) { controls, port in
        let (tenant, key) = try await hearth.createTenant(settings: settings)
        try await hearth.useMock(tenant, port: port, fallback: fallback)
        return try await body(controls, hearth, key, port)
    }
}
