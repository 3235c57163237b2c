import Foundation
import HearthPlatform
import LLM
import Memory

/// Memory's summaries and fact extraction use the tenant's own provider chain (Coaching owns the settings).
/// A tenant on the offline model, or whose providers all lack a usable key, gets `nil`: Memory then uses its
/// deterministic writers instead of asking the offline coach for JSON it cannot write.
public struct MemoryModelSource: MemoryModels {
    let database: Database
    let factory: ProviderFactory
    let settings: ProviderSettingsStore

    public init(database: Database, factory: ProviderFactory) {
        self.database = database
        self.factory = factory
        self.settings = ProviderSettingsStore(logger: database.logger)
    }

    public func completion(tenantID: UUID) async throws -> (@Sendable (CompletionRequest) async throws -> String)? {
        let providers = try await database.withTenant(tenantID) { [self] connection in try await settings.list(on: connection) }
        let chain = factory.chain(for: providers)
        guard chain.primary.kind != "offline" else { return nil }
        return { request in
            var answer = ""
            for try await event in chain.stream(request) {
                if case .delta(let text) = event { answer += text }
            }
            return answer
        }
    }
}
