import CoachingDomains
import Foundation
import HearthPlatform
import Hummingbird

/// `/console/tenants/{tenant}/domains`: the tenant's coaching domains (FR43, FR44). Every role reads them and
/// tries the router on a sample message; admins add a domain, edit one (as the YAML of its file, docs/domains.md),
/// disable or enable it, and roll it back to an earlier version. Each change is a new version, in the audit log.
public struct ConsoleDomainsController<Context: HearthRequestContextProtocol>: Sendable {
    struct ListPage {
        struct Row {
            let key: String
            let name: String
            let version: Int
            let enabled: Bool
            let source: String
            let author: String
            let changed: String
        }

        struct Trial {
            let sample: String
            let domain: String
            let confidence: String
            let routed: Bool
            let ranking: [Score]
        }

        struct Score {
            let key: String
            let probability: String
        }

        let chrome: Chrome
        let domains: [Row]
        let canEdit: Bool
        let sample: String
        let trial: Trial?
    }

    struct EditPage {
        struct VersionRow {
            let version: Int
            let source: String
            let author: String
            let at: String
            let enabled: Bool
            let current: Bool
        }

        let chrome: Chrome
        /// `nil` on the page that adds a domain.
        let key: String?
        let yaml: String
        let enabled: Bool
        let canEdit: Bool
        let versions: [VersionRow]
        /// An earlier version's YAML, when one is being looked at.
        let viewing: Int?
        let viewingYAML: String?
    }

    struct DefinitionForm: Decodable {
        let yaml: String
    }

    struct EnabledForm: Decodable {
        let enabled: String
    }

    struct RollbackForm: Decodable {
        let version: Int
    }

    static var maxSampleLength: Int { 1000 }

    /// What the add form starts from: every field, for the operator to fill in.
    static var newDomainTemplate: String {
        """
        key: wellbeing
        name: Wellbeing
        description: What this domain covers, in a sentence people would recognise.
        tone: How the coach sounds here.
        methodology: How the coach works here, step by step.
        personality: Who the coach is here.
        opening_style: How the coach opens a conversation here.
        examples:
          - user: Something a person might say.
            coach: How the coach would answer.
        router:
          keywords:
            3: [words that almost always mean this domain]
            2: [strong hints]
            1: [weak hints]
          samples:
            - A message people write in this domain.

        """
    }

    let domains: CoachingDomains
    let audit: AuditLog
    let pages: ConsolePages

    public init(domains: CoachingDomains, audit: AuditLog, pages: ConsolePages) {
        self.domains = domains
        self.audit = audit
        self.pages = pages
    }

    public func addRoutes(to tenant: RouterGroup<Context>) {
        tenant.get("domains", use: list)
        tenant.get("domains/new", use: new)
        tenant.post("domains", use: create)
        tenant.get("domains/:key", use: show)
        tenant.post("domains/:key", use: update)
        tenant.post("domains/:key/enabled", use: setEnabled)
        tenant.post("domains/:key/rollback", use: rollback)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let account = try context.requireOperator(.view)
        let tenant = try context.requireTenant()
        let catalog = try await domains.currentCatalog(tenantID: tenant.id)
        let sample = request.uri.queryParameters.get("sample")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard sample.count <= Self.maxSampleLength else {
            throw APIError.validation("A sample message can be at most \(Self.maxSampleLength) characters.")
        }
        let page = ListPage(
            chrome: pages.chrome(context, title: "Coaching domains", notice: Self.notice(request)),
            domains: catalog.versions.values.sorted { $0.definition.key < $1.definition.key }.map {
                .init(key: $0.definition.key, name: $0.definition.name, version: $0.version, enabled: $0.definition.enabled,
                      source: $0.source.rawValue, author: $0.author, changed: ConsoleFormat.timestamp($0.createdAt))
            },
            canEdit: account.may(.administer, in: tenant.id), sample: sample,
            trial: sample.isEmpty ? nil : Self.trial(sample, router: catalog.router)
        )
        return pages.render("console/domains", page)
    }

    /// The router's choice for a message opening a thread (no current domain, no earlier messages), and every
    /// domain's probability.
    static func trial(_ sample: String, router: DomainRouter) -> ListPage.Trial {
        let route = router.route(sample, current: nil)
        let ranking = zip(router.keys, router.probabilities(sample)).sorted { $0.1 > $1.1 }
        return .init(sample: sample, domain: route.domain ?? "none (no known words)", confidence: String(format: "%.2f", route.confidence),
                     routed: route.routed, ranking: ranking.map { .init(key: $0.0, probability: String(format: "%.3f", $0.1)) })
    }

    @Sendable func new(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.administer)
        return editor(context, key: nil, yaml: Self.newDomainTemplate, versions: [], problem: nil, status: .ok)
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requireOperator(.administer)
        let form = try await ConsoleForm.decode(DefinitionForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let definition: DomainDefinition
        do {
            definition = try DomainFiles.parse(form.yaml, file: "the form")
        } catch let invalid as DomainFiles.Invalid {
            return editor(context, key: nil, yaml: form.yaml, versions: [], problem: invalid.problems.joined(separator: "; "), status: .unprocessableContent)
        }
        let catalog = try await domains.currentCatalog(tenantID: tenant.id)
        guard catalog.versions[definition.key] == nil else {
            return editor(context, key: nil, yaml: form.yaml, versions: [],
                          problem: "A domain with the key '\(definition.key)' exists already: edit it instead.", status: .conflict)
        }
        // Another operator adding the same key at the same moment takes version 1 first: then this one exists already.
        guard try await !domains.save([definition], tenantID: tenant.id, source: .console, author: author.email,
                                      audited: Audited(log: audit, author: author)).isEmpty else {
            return editor(context, key: nil, yaml: form.yaml, versions: [],
                          problem: "A domain with the key '\(definition.key)' was just added by someone else: edit it instead.", status: .conflict)
        }
        return .redirect(to: "/console/tenants/\(tenant.slug)/domains/\(definition.key)?done=added")
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let key = try Self.key(context)
        let history = try await domains.history(key, tenantID: context.requireTenant().id)
        guard let current = history.first else { throw APIError.notFound("No such domain.") }
        let viewing = request.uri.queryParameters.get("version").flatMap(Int.init)
        let viewed = try viewing.flatMap { number in history.first { $0.version == number } }.map { try DomainFiles.yaml($0.definition) }
        return editor(context, key: key, yaml: try DomainFiles.yaml(current.definition), versions: history, problem: nil,
                      notice: Self.notice(request), viewing: viewed == nil ? nil : viewing, viewingYAML: viewed, status: .ok)
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requireOperator(.administer)
        let form = try await ConsoleForm.decode(DefinitionForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let key = try Self.key(context)
        let history = try await domains.history(key, tenantID: tenant.id)
        guard !history.isEmpty else { throw APIError.notFound("No such domain.") }
        let problem: String
        do {
            let definition = try DomainFiles.parse(form.yaml, file: "the form")
            if definition.key == key {
                let written = try await domains.save([definition], tenantID: tenant.id, source: .console, author: author.email,
                                                     audited: Audited(log: audit, author: author))
                return .redirect(to: "/console/tenants/\(tenant.slug)/domains/\(key)?done=\(written.isEmpty ? "unchanged" : "saved")")
            }
            problem = "The key cannot change (it names the domain on threads and messages): add a new domain instead."
        } catch let invalid as DomainFiles.Invalid {
            problem = invalid.problems.joined(separator: "; ")
        }
        return editor(context, key: key, yaml: form.yaml, versions: history, problem: problem, status: .unprocessableContent)
    }

    @Sendable func setEnabled(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requireOperator(.administer)
        let form = try await ConsoleForm.decode(EnabledForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let key = try Self.key(context)
        guard let current = try await domains.history(key, tenantID: tenant.id).first else { throw APIError.notFound("No such domain.") }
        guard let enabled = ["true": true, "false": false][form.enabled] else { throw APIError.validation("enabled must be true or false.") }
        var definition = current.definition
        definition.enabled = enabled
        _ = try await domains.save([definition], tenantID: tenant.id, source: .console, author: author.email,
                                   audited: Audited(log: audit, author: author))
        return .redirect(to: "/console/tenants/\(tenant.slug)/domains/\(key)?done=\(enabled ? "enabled" : "disabled")")
    }

    @Sendable func rollback(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requireOperator(.administer)
        let form = try await ConsoleForm.decode(RollbackForm.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let key = try Self.key(context)
        guard try await domains.rollback(key, to: form.version, tenantID: tenant.id, author: author.email,
                                         audited: Audited(log: audit, author: author)) != nil else {
            throw APIError.notFound("No such version.")
        }
        return .redirect(to: "/console/tenants/\(tenant.slug)/domains/\(key)?done=rolled-back")
    }

    private func editor(_ context: Context, key: String?, yaml: String, versions: [DomainStore.Version], problem: String?, notice: String? = nil,
                        viewing: Int? = nil, viewingYAML: String? = nil, status: HTTPResponse.Status) -> Response {
        let tenant = context.tenant
        let canEdit = tenant.map { context.operatorSession?.account.may(.administer, in: $0.id) ?? false } ?? false
        let page = EditPage(
            chrome: pages.chrome(context, title: key.map { "Domain: \($0)" } ?? "Add a domain", notice: notice, problem: problem),
            key: key, yaml: yaml, enabled: versions.first?.definition.enabled ?? true, canEdit: canEdit,
            versions: versions.enumerated().map { index, version in
                .init(version: version.version, source: version.source.rawValue, author: version.author,
                      at: ConsoleFormat.timestamp(version.createdAt), enabled: version.definition.enabled, current: index == 0)
            },
            viewing: viewing, viewingYAML: viewingYAML
        )
        return pages.render("console/domain", page, status: status)
    }

    static func key(_ context: Context) throws -> String {
        guard let key = context.parameters.get("key"), key.range(of: DomainDefinition.keyPattern, options: .regularExpression) != nil else {
            throw APIError.notFound("No such domain.")
        }
        return key
    }

    /// The outcome of the change that redirected here (`?done=`), in words.
    static func notice(_ request: Request) -> String? {
        switch request.uri.queryParameters.get("done") {
        case "added": "Domain added. The router uses it from the next message on."
        case "saved": "Saved as a new version."
        case "unchanged": "Nothing changed: no new version."
        case "enabled": "Enabled: the router may choose it again."
        case "disabled": "Disabled: the router no longer chooses it; its threads keep their history."
        case "rolled-back": "Rolled back: the chosen version is in effect again, as a new version."
        default: nil
        }
    }
}
