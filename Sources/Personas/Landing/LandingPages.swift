import CoachingDomains
import Foundation
import HearthPlatform
import PostgresNIO
import Safety

/// The tenant's coaching disclaimer for a locale: Coaching's safety settings, handed to the public pages by the
/// app (HearthApp) so that Personas needs no Coaching. Read in the page's own transaction.
public protocol PageNotices: Sendable {
    func disclaimer(locale: String?, on connection: PostgresConnection) async throws -> Disclaimer
}

/// The public side of share links (FR24–FR26): the page at `/p/{slug}`, its social preview image and avatar, and
/// each tenant's `apple-app-site-association`. Requests carry a host and a slug, no client key: the slug names
/// its tenant (`hearth_persona_link_tenant`), and a host that belongs to another tenant's links shows nothing.
/// Each request is one statement to find the tenant, then one transaction of that tenant.
public struct LandingPages: Sendable {
    /// What a slug shows.
    public enum Outcome: Sendable {
        case persona(PersonaPage)
        case unavailable(UnavailablePage)
    }

    let database: Database
    let links: PersonaLinks
    let domains: CoachingDomains
    let notices: any PageNotices

    public init(database: Database, links: PersonaLinks, domains: CoachingDomains, notices: any PageNotices) {
        self.database = database
        self.links = links
        self.domains = domains
        self.notices = notices
    }

    /// The page for `slug` requested on `host`; a click is counted when `countClick` (a person, not a link
    /// preview fetcher, and not a repeat visit).
    public func page(slug: String, host: String?, acceptLanguage: String?, countClick: Bool) async throws -> Outcome {
        let locale = CrisisResources.preferredLocale(acceptLanguage: acceptLanguage)
        let read = try await withLink(slug, host: host) { connection, tenantID, state -> PageRead? in
            switch state {
            case .missing: return nil
            case .revoked: return .gone(.revoked(try await links.appLinks.app(tenantID: tenantID, on: connection)))
            case .unavailable: return .gone(.withdrawn(try await links.appLinks.app(tenantID: tenantID, on: connection)))
            case .live(let link, let card, let revision):
                if countClick { try await links.store.countClick(link.id, on: connection) }
                return .live(card, revision: revision, try await surroundings(tenantID: tenantID, locale: locale, on: connection))
            }
        }
        switch read {
        case nil: return .unavailable(.notFound)
        case .gone(let page): return .unavailable(page)
        case .live(let card, let revision, let surroundings):
            return .persona(try await personaPage(slug: slug, card: card, surroundings) { domainName in
                Self.previewVersion(card: card, revision: revision, domainName: domainName, app: surroundings.app)
            })
        }
    }

    /// What a page's transaction read.
    private enum PageRead: Sendable {
        case gone(UnavailablePage)
        case live(PersonaCard, revision: Int, Surroundings)
    }

    /// What a persona page shows beside the persona, read in the page's transaction.
    private struct Surroundings: Sendable {
        let app: AppLinksStore.App
        /// The domain catalog's stamp, to name the persona's domain.
        let stamp: Int64?
        let disclaimer: Disclaimer
    }

    /// The social preview image of a live link's persona (drawn when asked: `png()`), with an ETag that changes when
    /// what it shows changes, so a request that already has it costs no drawing.
    public func preview(slug: String, host: String?) async throws -> (image: PreviewImage, etag: String)? {
        let read = try await withLink(slug, host: host) { connection, tenantID, state -> (PersonaCard, Int, AppLinksStore.App, Int64?)? in
            guard case .live(_, let card, let revision) = state else { return nil }
            return (card, revision, try await links.appLinks.app(tenantID: tenantID, on: connection), try await domains.stamp(on: connection))
        }
        guard let (card, revision, app, stamp) = read else { return nil }
        let domainName = try await domainName(card, tenantID: app.tenantID, stamp: stamp)
        return (PreviewImage(name: card.name, domain: domainName, creator: card.creatorName, appName: app.displayName),
                "\"\(Self.previewVersion(card: card, revision: revision, domainName: domainName, app: app))\"")
    }

    /// The published avatar of a live link's persona.
    public func avatar(slug: String, host: String?) async throws -> (kind: String, bytes: [UInt8])? {
        let image = try await withLink(slug, host: host) { connection, _, state -> AvatarImage? in
            guard case .live(_, let card, _) = state, card.hasAvatar else { return nil }
            return try await links.personas.avatar(personaID: card.id, published: true, on: connection)
        }
        return image.map { ($0.kind.rawValue, $0.bytes) }
    }

    /// `/.well-known/apple-app-site-association` for the tenant whose links live on `host`: its apps open `/p/*`.
    public func siteAssociation(host: String?) async throws -> [UInt8]? {
        guard let host, let owner = try await links.appLinks.links(host: host), !owner.links.appIDs.isEmpty else { return nil }
        let document: [String: Any] = [
            "applinks": ["details": [["appIDs": owner.links.appIDs, "components": [["/": "/p/*", "comment": "Coach persona share links"]]]]],
        ]
        return Array(try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// The page a persona's working copy would get once approved, for the moderator (the console shows it framed
    /// beside the review): the same template and view as `/p/{slug}`, with the tenant's app and disclaimer. No
    /// avatar (it is served only for live links) and no click counted; `nil` when the tenant has no such persona.
    public func draftPreview(tenantID: UUID, personaID: UUID, acceptLanguage: String?) async throws -> PersonaPage? {
        let locale = CrisisResources.preferredLocale(acceptLanguage: acceptLanguage)
        let read = try await database.withTenant(tenantID) { [self] connection -> (PersonaCard, Surroundings)? in
            guard let persona = try await links.personas.find(personaID, on: connection) else { return nil }
            return (PersonaCard(id: persona.id, content: persona.draft, hasAvatar: false),
                    try await surroundings(tenantID: tenantID, locale: locale, on: connection))
        }
        guard let (card, surroundings) = read else { return nil }
        return try await personaPage(slug: "preview", card: card, surroundings) { _ in "draft" }
    }

    // MARK: Helpers

    /// Runs `body` in a transaction of the tenant of `slug` with what the slug leads to; `nil` when no tenant has
    /// the slug, or `host` is another tenant's link host.
    private func withLink<T: Sendable>(_ slug: String, host: String?,
                                       _ body: @escaping @Sendable (PostgresConnection, UUID, PersonaLinks.LinkState) async throws -> T?) async throws -> T? {
        guard let tenantID = try await tenant(of: slug, host: host) else { return nil }
        return try await database.withTenant(tenantID) { [self] connection in
            try await body(connection, tenantID, try await links.state(slug, on: connection))
        }
    }

    /// The tenant of `slug`, unless `host` is another tenant's link host: one statement for both.
    private func tenant(of slug: String, host: String?) async throws -> UUID? {
        guard PersonaLinks.isSlug(slug) else { return nil }
        let otherHost = host.flatMap { $0 == links.publicHost ? nil : $0.lowercased() }
        let rows = try await database.client.liveRows(
            "SELECT hearth_persona_link_tenant(\(slug)), (SELECT tenant_id FROM tenant_app_links WHERE link_host = \(otherHost))",
            logger: database.logger
        )
        for (tenantID, hostOwner) in try rows.decode((UUID?, UUID?).self) {
            guard let tenantID, hostOwner == nil || hostOwner == tenantID else { return nil }
            return tenantID
        }
        return nil
    }

    private func surroundings(tenantID: UUID, locale: String?, on connection: PostgresConnection) async throws -> Surroundings {
        Surroundings(app: try await links.appLinks.app(tenantID: tenantID, on: connection), stamp: try await domains.stamp(on: connection),
                     disclaimer: try await notices.disclaimer(locale: locale, on: connection))
    }

    /// The page of `card`; `previewVersion` names its preview image from the domain's name.
    private func personaPage(slug: String, card: PersonaCard, _ surroundings: Surroundings,
                             previewVersion: (String) -> String) async throws -> PersonaPage {
        let domainName = try await domainName(card, tenantID: surroundings.app.tenantID, stamp: surroundings.stamp)
        return PersonaPage(slug: slug, card: card, domainName: domainName, app: surroundings.app, baseURL: links.baseURL(surroundings.app.links),
                           disclaimer: surroundings.disclaimer, previewVersion: previewVersion(domainName))
    }

    /// The domain as the tenant's catalog names it (the catalog cached while `stamp` is current).
    private func domainName(_ card: PersonaCard, tenantID: UUID, stamp: Int64?) async throws -> String {
        try await domains.catalog(tenantID: tenantID, stamp: stamp).definition(card.domain)?.name ?? card.domain.capitalized
    }

    /// Names the preview's content: the persona's approved revision and the names drawn beside it.
    static func previewVersion(card: PersonaCard, revision: Int, domainName: String, app: AppLinksStore.App) -> String {
        Secrets.hex(Secrets.sha256("\(card.id)|\(revision)|\(domainName)|\(app.displayName)").prefix(8))
    }
}
