import Foundation
import HearthPlatform
import LLM

/// Turns a tenant's provider settings into a ``ProviderChain``. No settings: the offline model.
public struct ProviderFactory: Sendable {
    public struct Options: Sendable {
        public var offlinePace: Duration = .milliseconds(35)
        public var firstTokenTimeout: Duration = .seconds(10)
        public var idleTimeout: Duration = .seconds(30)
        public var chainPolicy = ProviderChain.Policy()

        public init() {}
    }

    let transport: ProviderTransport
    let options: Options

    public init(transport: ProviderTransport, options: Options) {
        self.transport = transport
        self.options = options
    }

    /// Settings whose key cannot be resolved are skipped (their turn falls back); if nothing is usable the
    /// offline model answers, so a misconfiguration degrades instead of breaking coaching. `economyModel` replaces
    /// the primary provider's model (a person nearing their budget); the fallback is left as it is.
    func chain(for settings: [ProviderSetting], economyModel: String? = nil) -> ProviderChain {
        let settings = settings.map { setting in
            guard let economyModel, setting.position == .primary else { return setting }
            return ProviderSetting(position: setting.position, kind: setting.kind, model: economyModel, baseURL: setting.baseURL,
                                   apiKeyReference: setting.apiKeyReference)
        }
        let providers = settings.compactMap { provider(for: $0) }
        return ProviderChain(providers: providers.isEmpty ? [OfflineProvider(pace: options.offlinePace)] : providers, policy: options.chainPolicy)
    }

    func provider(for setting: ProviderSetting) -> (any LLMProvider)? {
        let key: String?
        do {
            key = try setting.apiKeyReference.map { try SecretReference($0).resolve() }
        } catch {
            return nil
        }
        switch setting.kind {
        case "openai":
            return OpenAICompatibleProvider(
                model: setting.model, baseURL: setting.baseURL ?? "https://api.openai.com/v1", apiKey: key, transport: transport,
                firstEventTimeout: options.firstTokenTimeout, idleTimeout: options.idleTimeout
            )
        case "anthropic":
            return AnthropicProvider(
                model: setting.model, baseURL: setting.baseURL ?? "https://api.anthropic.com", apiKey: key, transport: transport,
                firstEventTimeout: options.firstTokenTimeout, idleTimeout: options.idleTimeout
            )
        case "offline":
            return OfflineProvider(pace: options.offlinePace)
        default:
            return nil
        }
    }
}
