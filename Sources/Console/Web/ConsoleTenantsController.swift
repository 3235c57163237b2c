import Coaching
import Foundation
import HearthPlatform
import Hummingbird
import LLM
import Safety

/// Tenants, for platform admins: create one (`/console/tenants/new`), and each tenant's settings
/// (`/console/tenants/{tenant}/settings`): name, password rule, Sign in with Apple bundle ids and the prompt debug
/// view; its LLM providers; its crisis resources per locale; its client keys (add one, revoke an old one). Trial,
/// plans and App Store settings are on the tenant's billing page. Every change is audited in its transaction.
public struct ConsoleTenantsController<Context: HearthRequestContextProtocol>: Sendable {
    struct NewPage {
        let chrome: Chrome
        let slug: String
        let name: String
    }

    struct SettingsPage {
        struct Option {
            let value: String
            let label: String
            let selected: Bool
        }

        struct ProviderForm {
            let position: String
            let title: String
            let kinds: [Option]
            let model: String
            let baseURL: String
            let apiKeyReference: String
        }

        struct LocaleForm {
            let locale: String
            let resources: String
            let disclaimerShort: String
            let disclaimerFull: String
            /// The empty form for a locale not set yet.
            let isNew: Bool
        }

        struct KeyRow {
            let key: String
            let created: String
        }

        let chrome: Chrome
        let general: General
        let providers: [ProviderForm]
        let locales: [LocaleForm]
        let keys: [KeyRow]
        let canRevoke: Bool
    }

    /// The general form's fields as shown.
    struct General {
        let name: String
        let passwordMinLength: String
        let bundleIDs: String
        let promptDebug: Bool
    }

    struct CreateForm: Decodable {
        let slug: String
        let name: String
    }

    struct GeneralForm: Decodable {
        let name: String
        let passwordMinLength: String
        let bundleIDs: String
        let promptDebug: String?
    }

    struct ProviderFields: Decodable {
        let kind: String
        let model: String?
        let baseURL: String?
        let apiKeyReference: String?
    }

    struct SafetyForm: Decodable {
        let locale: String
        let resources: String
        let disclaimerShort: String?
        let disclaimerFull: String?
    }

    struct KeyForm: Decodable {
        let key: String
    }

    static var providerKinds: [(value: String, label: String)] {
        [("none", "None"), ("offline", "Offline coach (no model, no cost)"), ("openai", "OpenAI-compatible (OpenAI, DeepSeek, Ollama, vLLM)"),
         ("anthropic", "Anthropic Messages")]
    }

    let tenants: TenantStore
    /// This instance's memory of client keys, forgotten for a tenant once its settings or keys change.
    let directory: TenantDirectory
    let database: Database
    let safety: SafetySettings
    let audit: AuditLog
    let pages: ConsolePages

    public init(tenants: TenantStore, directory: TenantDirectory, database: Database, audit: AuditLog, pages: ConsolePages) {
        self.tenants = tenants
        self.directory = directory
        self.database = database
        self.safety = SafetySettings(database: database)
        self.audit = audit
        self.pages = pages
    }

    public func addRoutes(signedIn: RouterGroup<Context>, tenant: RouterGroup<Context>) {
        signedIn.get("tenants/new", use: new)
        signedIn.post("tenants", use: create)
        tenant.get("settings", use: show)
        tenant.post("settings/general", use: general)
        tenant.post("settings/llm/:position", use: provider)
        tenant.post("settings/safety", use: crisisResources)
        tenant.post("settings/keys", use: addKey)
        tenant.post("settings/keys/revoke", use: revokeKey)
    }

    // MARK: - Creating

    @Sendable func new(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requirePlatformAdmin()
        return pages.render("console/tenant-new", NewPage(chrome: pages.chrome(context, title: "Create a tenant"), slug: "", name: ""))
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requirePlatformAdmin()
        let form = try await ConsoleForm.decode(CreateForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let slug = form.slug.trimmingCharacters(in: .whitespaces)
        let name = form.name.trimmingCharacters(in: .whitespaces)
        func refused(_ problem: String, _ status: HTTPResponse.Status) -> Response {
            pages.render("console/tenant-new", NewPage(chrome: pages.chrome(context, title: "Create a tenant", problem: problem), slug: slug, name: name),
                         status: status)
        }
        guard (1...100).contains(name.count) else { return refused("The name must be 1 to 100 characters.", .unprocessableContent) }
        do {
            _ = try await tenants.create(slug: slug, name: name, audited: Audited(log: audit, author: author))
        } catch let error as ConfigError {
            return refused(Self.sentence(error), error.isConflict ? .conflict : .unprocessableContent)
        }
        return .redirect(to: "/console/tenants/\(slug)/settings?done=created")
    }

    // MARK: - Settings

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requirePlatformAdmin()
        return try await page(context, notice: Self.notice(request), problem: nil, status: .ok)
    }

    @Sendable func general(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requirePlatformAdmin()
        let form = try await ConsoleForm.decode(GeneralForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let bundleIDs = form.bundleIDs.split(whereSeparator: { $0 == "," || $0.isNewline || $0 == " " }).map(String.init)
        let name = form.name.trimmingCharacters(in: .whitespaces)
        // A refused form shows what the operator typed, not the stored values.
        let typed = General(name: form.name, passwordMinLength: form.passwordMinLength, bundleIDs: form.bundleIDs, promptDebug: form.promptDebug == "on")
        guard (1...100).contains(name.count) else { return try await page(context, problem: "The name must be 1 to 100 characters.", general: typed) }
        guard let minLength = Int(form.passwordMinLength.trimmingCharacters(in: .whitespaces)) else {
            return try await page(context, problem: "The shortest password is a number of characters.", general: typed)
        }
        guard bundleIDs.allSatisfy({ $0.range(of: #"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$"#, options: .regularExpression) != nil }) else {
            return try await page(context, problem: "Bundle ids look like com.example.coach, separated by commas or lines.", general: typed)
        }
        do {
            _ = try await tenants.update(slug: context.requireTenant().slug,
                                         settings: .init(name: name, passwordMinLength: minLength, appleAudiences: bundleIDs,
                                                         promptDebug: form.promptDebug == "on"),
                                         audited: Audited(log: audit, author: author))
        } catch let error as ConfigError {
            return try await page(context, problem: Self.sentence(error), general: typed)
        }
        directory.forget(tenantID: try context.requireTenant().id)
        return try .redirect(to: "/console/tenants/\(context.requireTenant().slug)/settings?done=general")
    }

    @Sendable func provider(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requirePlatformAdmin()
        let form = try await ConsoleForm.decode(ProviderFields.self, from: request, context: context, checkingCSRFWith: pages.security)
        guard let position = context.parameters.get("position").flatMap(ProviderSetting.Position.init(name:)) else {
            throw APIError.notFound("No such provider position.")
        }
        let tenant = try context.requireTenant()
        let setting: ProviderSetting?
        do {
            setting = try Self.setting(form, position: position)
        } catch let problem as Problem {
            return try await page(context, problem: problem.message)
        }
        let store = ProviderSettingsStore(logger: database.logger)
        try await database.withTenant(tenant.id) { [self] connection in
            try await store.apply(setting, at: position, tenantID: tenant.id, audited: Audited(log: audit, author: author), on: connection)
        }
        return .redirect(to: "/console/tenants/\(tenant.slug)/settings?done=llm")
    }

    struct Problem: Error {
        let message: String
    }

    /// The provider a form describes; `nil` for "none". Keys are only ever referenced (`env:`/`file:`), never typed in.
    static func setting(_ form: ProviderFields, position: ProviderSetting.Position) throws -> ProviderSetting? {
        guard form.kind != "none" else { return nil }
        do {
            return try ProviderSetting.described(position: position, kind: form.kind, model: form.model, baseURL: form.baseURL,
                                                 apiKeyReference: form.apiKeyReference)
        } catch {
            throw Problem(message: error.message)
        }
    }

    @Sendable func crisisResources(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requirePlatformAdmin()
        let form = try await ConsoleForm.decode(SafetyForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let short = form.disclaimerShort?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
        let full = form.disclaimerFull?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
        guard (short == nil) == (full == nil) else {
            return try await page(context, problem: "Give the disclaimer's short and full text together, or neither.")
        }
        do {
            try await safety.save(tenantID: tenant.id, locale: form.locale.trimmingCharacters(in: .whitespaces),
                                  resources: Self.resources(form.resources), disclaimer: short.flatMap { short in full.map { Disclaimer(short: short, full: $0) } },
                                  audited: Audited(log: audit, author: author))
        } catch let error as APIError where error.status == .unprocessableContent {
            return try await page(context, problem: error.message)
        }
        return .redirect(to: "/console/tenants/\(tenant.slug)/settings?done=safety")
    }

    /// Resources written one per line: `name | description | phone | text | url`, empty fields left empty.
    static func resources(_ text: String) -> [CrisisResource] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = fields.first, !name.isEmpty else { return nil }
            func field(_ index: Int) -> String? { index < fields.count ? fields[index].nonEmpty : nil }
            return CrisisResource(name: name, description: field(1) ?? "", phone: field(2), text: field(3), url: field(4))
        }
    }

    static func lines(_ resources: [CrisisResource]) -> String {
        resources.map { [$0.name, $0.description, $0.phone ?? "", $0.text ?? "", $0.url ?? ""].joined(separator: " | ") }.joined(separator: "\n")
    }

    @Sendable func addKey(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requirePlatformAdmin()
        _ = try await ConsoleForm.decode(ConsoleForm.Empty.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        _ = try await tenants.addClientKey(slug: tenant.slug, audited: Audited(log: audit, author: author))
        return .redirect(to: "/console/tenants/\(tenant.slug)/settings?done=key-added")
    }

    @Sendable func revokeKey(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requirePlatformAdmin()
        let form = try await ConsoleForm.decode(KeyForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        guard try await tenants.revokeClientKey(form.key, tenantID: tenant.id, audited: Audited(log: audit, author: author)) else {
            return try await page(context, problem: "That key is not one of this tenant's working keys, or it is the last one: add a new key first.",
                                  status: .conflict)
        }
        directory.forget(tenantID: tenant.id)
        return .redirect(to: "/console/tenants/\(tenant.slug)/settings?done=key-revoked")
    }

    // MARK: - The page

    /// `general`: the general form as typed, when it was refused.
    private func page(_ context: Context, notice: String? = nil, problem: String?, status: HTTPResponse.Status = .unprocessableContent,
                      general: General? = nil) async throws -> Response {
        let tenant = try context.requireTenant()
        let providers = try await database.withTenant(tenant.id) { [self] connection in try await ProviderSettingsStore(logger: database.logger).list(on: connection) }
        let locales = try await safety.locales(tenantID: tenant.id)
        let keys = try await tenants.activeClientKeys(tenantID: tenant.id)
        let view = SettingsPage(
            chrome: pages.chrome(context, title: "Settings", notice: notice, problem: problem),
            general: general ?? .init(name: tenant.name, passwordMinLength: String(tenant.passwordMinLength),
                                      bundleIDs: tenant.appleAudiences.joined(separator: "\n"), promptDebug: tenant.promptDebug),
            providers: [ProviderSetting.Position.primary, .fallback].map { position in
                let setting = providers.first { $0.position == position }
                return .init(position: position.name,
                             title: position == .primary ? "Primary provider (none: the offline coach)" : "Fallback provider",
                             kinds: Self.providerKinds.map { .init(value: $0.value, label: $0.label, selected: $0.value == (setting?.kind ?? "none")) },
                             model: setting?.model ?? "", baseURL: setting?.baseURL ?? "", apiKeyReference: setting?.apiKeyReference ?? "")
            },
            locales: locales.map {
                .init(locale: $0.locale, resources: Self.lines($0.resources), disclaimerShort: $0.disclaimer?.short ?? "",
                      disclaimerFull: $0.disclaimer?.full ?? "", isNew: false)
            } + [.init(locale: "", resources: "", disclaimerShort: "", disclaimerFull: "", isNew: true)],
            keys: keys.map { .init(key: $0.key, created: ConsoleFormat.timestamp($0.createdAt)) },
            canRevoke: keys.count > 1
        )
        return pages.render("console/settings", view, status: problem == nil ? .ok : status)
    }

    static func sentence(_ error: ConfigError) -> String {
        let text = error.description
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    static func notice(_ request: Request) -> String? {
        switch request.uri.queryParameters.get("done") {
        case "created": "Tenant created with its first client key. Its apps use that key; set its model and resources below."
        case "general": "Saved."
        case "llm": "Provider saved: the next turn uses it."
        case "safety": "Crisis resources saved: crisis answers show them from now on, apps within five minutes (their cache)."
        case "key-added": "Key added. Ship it in the app, then revoke the old one."
        case "key-revoked": "Key revoked: apps that still send it are refused (by other server instances once they stop remembering it: HEARTH_TENANT_CACHE_SECONDS)."
        default: nil
        }
    }
}

extension String {
    /// `nil` when empty.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
