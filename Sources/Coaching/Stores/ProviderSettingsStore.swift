import Foundation
import HearthPlatform
import LLM
import Logging
import PostgresNIO

/// One of a tenant's configured providers (`tenant_llm_providers`).
public struct ProviderSetting: Sendable, Equatable {
    public enum Position: Int, Sendable {
        case primary = 0, fallback = 1

        public init?(name: String) {
            switch name {
            case "primary": self = .primary
            case "fallback": self = .fallback
            default: return nil
            }
        }

        /// "primary" or "fallback", as ``init(name:)`` reads it.
        public var name: String { self == .primary ? "primary" : "fallback" }
    }

    public let position: Position
    public let kind: String
    public let model: String
    public let baseURL: String?
    /// `env:NAME` or `file:/path`; the key itself is never stored.
    public let apiKeyReference: String?

    public init(position: Position, kind: String, model: String, baseURL: String?, apiKeyReference: String?) {
        self.position = position
        self.kind = kind
        self.model = model
        self.baseURL = baseURL
        self.apiKeyReference = apiKeyReference
    }

    /// The kinds of provider there are.
    static let kinds = ["offline", "openai", "anthropic"]

    /// Why a provider an operator described cannot be saved; the message says what to give instead.
    public struct Invalid: Error, Equatable {
        public let message: String
    }

    /// The provider an operator described, in the console or with `hearth tenant llm`, checked the same way for
    /// both: a known kind, a model named (the offline coach's is "offline"), an http(s) base URL with no
    /// credentials in it, and the key only ever by reference. Blank fields count as not given.
    public static func described(position: Position, kind: String, model: String?, baseURL: String?,
                                 apiKeyReference: String?) throws(Invalid) -> ProviderSetting {
        func given(_ text: String?) -> String? {
            guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
            return trimmed
        }
        guard kinds.contains(kind) else { throw Invalid(message: "Choose a kind of provider: offline, openai or anthropic.") }
        let model = given(model) ?? (kind == "offline" ? "offline" : "")
        guard (1...200).contains(model.count) else { throw Invalid(message: "Name the model, e.g. gpt-4o-mini.") }
        let baseURL = given(baseURL)
        if let baseURL {
            guard let url = URLComponents(string: baseURL), ["http", "https"].contains(url.scheme), url.host?.isEmpty == false else {
                throw Invalid(message: "The base URL must be an http or https address, e.g. https://api.openai.com/v1.")
            }
            // Keys hide in addresses too (https://sk-…@host, ?api-key=…): they would be stored and shown in clear.
            guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil else {
                throw Invalid(message: "The base URL takes no user, password or query: give the API key as env:NAME or file:/path.")
            }
        }
        let reference = given(apiKeyReference)
        if let reference, (try? SecretReference(reference)) == nil {
            throw Invalid(message: "The API key is given as env:NAME or file:/path, never the key itself.")
        }
        return ProviderSetting(position: position, kind: kind, model: model, baseURL: baseURL, apiKeyReference: reference)
    }
}

/// Owns `tenant_llm_providers`.
public struct ProviderSettingsStore: Sendable {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func save(_ setting: ProviderSetting, tenantID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO tenant_llm_providers (tenant_id, position, kind, model, base_url, api_key_ref)
            VALUES (\(tenantID), \(setting.position.rawValue), \(setting.kind), \(setting.model), \(setting.baseURL), \(setting.apiKeyReference))
            ON CONFLICT (tenant_id, position) DO UPDATE SET
                kind = excluded.kind, model = excluded.model, base_url = excluded.base_url, api_key_ref = excluded.api_key_ref
            """,
            logger: logger
        )
    }

    public func remove(_ position: ProviderSetting.Position, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM tenant_llm_providers WHERE position = \(position.rawValue)", logger: logger)
    }

    /// Sets the provider at `position` (`nil`: removes it), recorded in the audit log in the caller's transaction.
    public func apply(_ setting: ProviderSetting?, at position: ProviderSetting.Position, tenantID: UUID, audited: Audited,
                      on connection: PostgresConnection) async throws {
        if let setting {
            try await save(setting, tenantID: tenantID, on: connection)
        } else {
            try await remove(position, on: connection)
        }
        let detail = setting.map { "\($0.kind) \($0.model)\($0.baseURL.map { " at \($0)" } ?? "")" } ?? "removed"
        try await audited.record("tenant.llm", "\(position.name): \(detail)", tenantID: tenantID, on: connection)
    }

    /// The tenant's providers, primary first (the chat turn reads them with its context instead).
    public func list(on connection: PostgresConnection) async throws -> [ProviderSetting] {
        let rows = try await connection.query(
            "SELECT position, kind, model, base_url, api_key_ref FROM tenant_llm_providers ORDER BY position", logger: logger
        )
        var settings: [ProviderSetting] = []
        for try await (position, kind, model, url, reference) in rows.decode((Int, String, String, String?, String?).self) {
            guard let position = ProviderSetting.Position(rawValue: position) else { continue }
            settings.append(ProviderSetting(position: position, kind: kind, model: model, baseURL: url, apiKeyReference: reference))
        }
        return settings
    }
}
