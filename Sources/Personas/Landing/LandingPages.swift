import CoachingDomains
import Foundation
import HearthPlatform
import PostgresNIO
import Safety

/// The tenant's coaching disclaimer for a locale: Coaching's safety settings, handed to the public pages by the
/// app (HearthApp) so that Personas needs no Coaching.
public protocol PageNotices: Sendable {
    func disclaimer(tenantID: UUID, locale: String?) async throws -> Disclaimer
}

/// The public side of share links (FR24–FR26): the page at `/p/{slug}`, its social preview image and avatar, and
/// each tenant's `apple-app-site-association`. Requests carry a host and a slug, no client key: the slug names
/// its tenant (`hearth_persona_link_tenant`), and a host that belongs to another tenant's links shows nothing.
public struct LandingPages: Sendable {
    /// What a slug shows.
    public enum Outcome: Sendable {
        case persona(PersonaPage)
        case unavailable(UnavailablePage)
    }

    let database: Database
    let links: PersonaLinks
    let appLinks: AppLinksStore
    let domains: CoachingDomains
    let notices: any PageNotices

    public init(database: Database, links: PersonaLinks, domains: CoachingDomains, notices: any PageNotices) {
        self.database = database
        self.links = links
        self.appLinks = AppLinksStore(database: database)
        self.domains = domains
        self.notices = notices
    }

    /// The page for `slug` requested on `host`; a click is counted when `countClick` (a person, not a link
    /// preview fetcher, and not a repeat visit).
    public func page(slug: String, host: String?, acceptLanguage: String?, countClick: Bool) async throws -> Outcome {
        guard let tenantID = try await tenant(of: slug, host: host) else { return .unavailable(.notFound) }
        let (state, app) = try await database.withTenant(tenantID) { connection in
            let state = try await links.state(slug, on: connection)
            if countClick, case .live(let link, _, _) = state { try await links.store.countClick(link.id, on: connection) }
            return (state, try await appLinks.app(tenantID: tenantID, on: connection))
        }
        switch state {
        case .missing: return .unavailable(.notFound)
        case .revoked: return .unavailable(.revoked(app))
        case .unavailable: return .unavailable(.withdrawn(app))
        case .live(_, let card, let revision):
            let domainName = try await domainName(card, tenantID: tenantID)
            let disclaimer = try await notices.disclaimer(tenantID: tenantID, locale: CrisisResources.preferredLocale(acceptLanguage: acceptLanguage))
            let base = links.baseURL(app.links)
            return .persona(PersonaPage(slug: slug, card: card, domainName: domainName, app: app, baseURL: base, disclaimer: disclaimer,
                                        previewVersion: Self.previewVersion(card: card, revision: revision, domainName: domainName, app: app)))
        }
    }

    /// The social preview image of a live link's persona (drawn when asked: `png()`), with an ETag that changes when
    /// what it shows changes, so a request that already has it costs no drawing.
    public func preview(slug: String, host: String?) async throws -> (image: PreviewImage, etag: String)? {
        guard let (card, revision, app) = try await live(slug, host: host) else { return nil }
        let domainName = try await domainName(card, tenantID: app.tenantID)
        return (PreviewImage(name: card.name, domain: domainName, creator: card.creatorName, appName: app.displayName),
                "\"\(Self.previewVersion(card: card, revision: revision, domainName: domainName, app: app))\"")
    }

    /// The published avatar of a live link's persona.
    public func avatar(slug: String, host: String?) async throws -> (kind: String, bytes: [UInt8])? {
        guard let tenantID = try await tenant(of: slug, host: host) else { return nil }
        return try await database.withTenant(tenantID) { connection in
            guard case .live(_, let card, _) = try await links.state(slug, on: connection), card.hasAvatar,
                  let image = try await links.personas.avatar(personaID: card.id, published: true, on: connection) else { return nil }
            return (image.kind.rawValue, image.bytes)
        }
    }

    /// `/.well-known/apple-app-site-association` for the tenant whose links live on `host`: its apps open `/p/*`.
    public func siteAssociation(host: String?) async throws -> [UInt8]? {
        guard let host, let owner = try await appLinks.links(host: host), !owner.links.appIDs.isEmpty else { return nil }
        let document: [String: Any] = [
            "applinks": ["details": [["appIDs": owner.links.appIDs, "components": [["/": "/p/*", "comment": "Coach persona share links"]]]]],
        ]
        return Array(try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    // MARK: Helpers

    /// The tenant of `slug`, unless `host` is another tenant's link host.
    func tenant(of slug: String, host: String?) async throws -> UUID? {
        guard PersonaLinks.isSlug(slug) else { return nil }
        let rows = try await database.client.query("SELECT hearth_persona_link_tenant(\(slug))", logger: database.logger)
        var tenantID: UUID?
        for try await id in rows.decode(UUID?.self) { tenantID = id }
        guard let tenantID else { return nil }
        if let host, host != links.publicHost, let owner = try await appLinks.links(host: host), owner.tenantID != tenantID { return nil }
        return tenantID
    }

    /// The domain as the tenant's catalog names it.
    private func domainName(_ card: PersonaCard, tenantID: UUID) async throws -> String {
        try await domains.currentCatalog(tenantID: tenantID).definition(card.domain)?.name ?? card.domain.capitalized
    }

    private func live(_ slug: String, host: String?) async throws -> (PersonaCard, Int, AppLinksStore.App)? {
        guard let tenantID = try await tenant(of: slug, host: host) else { return nil }
        return try await database.withTenant(tenantID) { connection in
            guard case .live(_, let card, let revision) = try await links.state(slug, on: connection) else { return nil }
            return (card, revision, try await appLinks.app(tenantID: tenantID, on: connection))
        }
    }

    /// Names the preview's content: the persona's approved revision and the names drawn beside it.
    static func previewVersion(card: PersonaCard, revision: Int, domainName: String, app: AppLinksStore.App) -> String {
        let digest = Secrets.sha256("\(card.id)|\(revision)|\(domainName)|\(app.displayName)").prefix(8)
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
