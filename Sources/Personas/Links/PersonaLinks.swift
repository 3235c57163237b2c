import Foundation
import HearthPlatform
import PostgresNIO

/// Starts a thread with a persona for a person: Coaching's job, handed to Personas by the app (HearthApp), so
/// that the link module needs no Coaching.
public protocol PersonaThreads: Sendable {
    func startThread(tenant: Tenant, identity: Identity, personaID: UUID, domain: String) async throws -> UUID
}

/// Share links (FR24–FR26): a creator's link to their persona, or a user's share of a persona they love, each
/// under its own unguessable slug and counted: page clicks, app opens, sessions started, people who came back.
/// A link only works while its persona is live; revoking or rotating one ends its slug for good.
public struct PersonaLinks: Sendable {
    public enum Kind: String, Sendable, Codable {
        /// The persona's creator shares it.
        case creator
        /// Someone else shares a persona they love.
        case share
    }

    public struct Stats: Sendable, Codable, Equatable {
        public let clicks: Int
        public let appOpens: Int
        public let starts: Int
        public let returns: Int
    }

    public struct LinkView: Sendable, Codable, Equatable {
        public let slug: String
        public let kind: Kind
        /// The public page: `/p/{slug}` under the configured public URL.
        public let url: String
        public let createdAt: Date
        public let revokedAt: Date?
        public let stats: Stats?
    }

    /// What a started session returns.
    public struct Started: Sendable, Codable {
        public let threadID: UUID
        public let persona: PersonaCard
        /// False when the person had already started from this link and its thread goes on.
        public let isNew: Bool
    }

    let database: Database
    let store: LinkStore
    let personas: PersonaStore
    let appLinks: AppLinksStore
    let threads: any PersonaThreads
    /// Where `/p/{slug}` is served for a tenant without a link host of its own (`HEARTH_PUBLIC_URL`).
    let publicURL: String
    /// The public URL's host (and port), as a request's `Host` names it.
    let publicHost: String?
    /// The quiet time after which a message starts a new session (memory's idle time): what counts as a return.
    let sessionGap: Duration

    public init(database: Database, threads: any PersonaThreads, publicURL: String, sessionGap: Duration) {
        self.database = database
        self.store = LinkStore(logger: database.logger)
        self.personas = PersonaStore(logger: database.logger)
        self.appLinks = AppLinksStore(database: database)
        self.threads = threads
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.publicHost = URL(string: publicURL).flatMap { url in url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } }
        self.sessionGap = sessionGap
    }

    static let noLink = APIError.notFound("No such link.")
    static let revoked = APIError(.gone, code: "link_revoked", message: "This link no longer works: ask for a new one.")
    static let unavailable = APIError(.gone, code: "persona_unavailable", message: "This coach is not available any more.")

    /// The person's live link to a live persona: the one they have, or a new one.
    public func share(tenant: Tenant, identity: Identity, personaID: UUID) async throws -> (link: LinkView, created: Bool) {
        try await database.withTenant(tenant.id) { [self] connection in
            guard let persona = try await personas.creator(of: personaID, on: connection), persona.isLive else {
                throw APIError.notFound("No such persona, or it cannot be shared yet.")
            }
            let base = try await baseURL(tenantID: tenant.id, on: connection)
            if let link = try await store.liveLink(personaID: personaID, userID: identity.userID, on: connection) {
                return (view(link, stats: nil, base: base), false)
            }
            let kind: Kind = persona.creatorID == identity.userID ? .creator : .share
            let link = try await store.create(tenantID: tenant.id, personaID: personaID, userID: identity.userID, kind: kind, on: connection)
            return (view(link, stats: nil, base: base), true)
        }
    }

    /// A persona's links with what each led to: all of them for its creator, the person's own for anyone else.
    public func links(tenant: Tenant, identity: Identity, personaID: UUID) async throws -> [LinkView] {
        try await database.withTenant(tenant.id) { [self] connection in
            guard let persona = try await personas.creator(of: personaID, on: connection) else { throw Personas.notFound }
            let creator = persona.creatorID == identity.userID
            let base = try await baseURL(tenantID: tenant.id, on: connection)
            return try await store.stats(personaID: personaID, userID: creator ? nil : identity.userID, sessionGap: sessionGap, on: connection)
                .map { view($0.0, stats: $0.1, base: base) }
        }
    }

    /// A new slug for the owner's link; the old one stops working.
    public func rotate(tenant: Tenant, identity: Identity, slug: String) async throws -> LinkView {
        try await database.withTenant(tenant.id) { [self] connection in
            let link = try await owned(slug, by: identity, on: connection)
            guard link.revokedAt == nil else { throw Self.revoked }
            try await store.revoke(link.id, on: connection)
            return view(try await store.create(tenantID: tenant.id, personaID: link.personaID, userID: identity.userID, kind: link.kind,
                                               on: connection), stats: nil, base: try await baseURL(tenantID: tenant.id, on: connection))
        }
    }

    public func revoke(tenant: Tenant, identity: Identity, slug: String) async throws {
        try await database.withTenant(tenant.id) { [self] connection in
            let link = try await owned(slug, by: identity, on: connection)
            try await store.revoke(link.id, on: connection)
        }
    }

    /// The app opened from a link (FR26): counted, and the persona's card to show.
    public func open(tenant: Tenant, slug: String) async throws -> PersonaCard {
        try await database.withTenant(tenant.id) { [self] connection in
            let (link, card) = try await usable(slug, on: connection)
            try await store.countAppOpen(link.id, on: connection)
            return card
        }
    }

    /// A session with the link's persona for the signed-in person (an anonymous first session works): the thread
    /// they started from this link before, or a new one, counted once a person.
    public func start(tenant: Tenant, identity: Identity, slug: String) async throws -> Started {
        let (link, card, existing) = try await database.withTenant(tenant.id) { [self] connection in
            let (link, card) = try await usable(slug, on: connection)
            return (link, card, try await store.startedThread(linkID: link.id, userID: identity.userID, on: connection))
        }
        if let existing { return Started(threadID: existing, persona: card, isNew: false) }
        let threadID = try await threads.startThread(tenant: tenant, identity: identity, personaID: link.personaID, domain: card.domain)
        try await database.withTenant(tenant.id) { [self] connection in
            try await store.recordStart(tenantID: tenant.id, linkID: link.id, userID: identity.userID, threadID: threadID, on: connection)
        }
        return Started(threadID: threadID, persona: card, isNew: true)
    }

    // MARK: Helpers

    /// What a slug leads to in the connection's tenant.
    enum LinkState: Sendable {
        case missing
        case revoked
        /// Its persona is suspended, or was never approved.
        case unavailable
        case live(LinkStore.Link, PersonaCard, publishedRevision: Int)
    }

    func state(_ slug: String, on connection: PostgresConnection) async throws -> LinkState {
        guard Self.isSlug(slug), let link = try await store.link(slug: slug, on: connection) else { return .missing }
        guard link.revokedAt == nil else { return .revoked }
        guard let published = try await personas.published(link.personaID, on: connection) else { return .unavailable }
        let card = PersonaCard(id: link.personaID, content: published.content, hasAvatar: published.hasAvatar)
        return .live(link, card, publishedRevision: published.revision)
    }

    /// A live link to a live persona, with its card; 404 for no such slug (in this tenant), 410 when it is revoked
    /// or its persona is no longer live.
    func usable(_ slug: String, on connection: PostgresConnection) async throws -> (LinkStore.Link, PersonaCard) {
        switch try await state(slug, on: connection) {
        case .missing: throw Self.noLink
        case .revoked: throw Self.revoked
        case .unavailable: throw Self.unavailable
        case .live(let link, let card, _): return (link, card)
        }
    }

    private func owned(_ slug: String, by identity: Identity, on connection: PostgresConnection) async throws -> LinkStore.Link {
        guard Self.isSlug(slug), let link = try await store.link(slug: slug, on: connection), link.userID == identity.userID else {
            throw Self.noLink
        }
        return link
    }

    func view(_ link: LinkStore.Link, stats: Stats?, base: String) -> LinkView {
        LinkView(slug: link.slug, kind: link.kind, url: "\(base)/p/\(link.slug)", createdAt: link.createdAt, revokedAt: link.revokedAt,
                 stats: stats)
    }

    /// Where a tenant's link pages live: its own link host (where its app's universal links point), else the
    /// public URL.
    func baseURL(_ links: AppLinks) -> String {
        links.host.map { "https://\($0)" } ?? publicURL
    }

    private func baseURL(tenantID: UUID, on connection: PostgresConnection) async throws -> String {
        baseURL(try await appLinks.links(tenantID: tenantID, on: connection))
    }



    /// What a slug looks like; anything else is not looked up.
    static func isSlug(_ text: String) -> Bool {
        text.utf8.count == 16 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}

/// A live persona as apps and its public page show it: the published copy, never the working one.
public struct PersonaCard: Sendable, Codable, Equatable {
    public let id: UUID
    public let name: String
    public let domain: String
    public let description: String
    public let creatorName: String
    public let greeting: String?
    public let examples: [String]
    public let hasAvatar: Bool

    init(id: UUID, content: PersonaContent, hasAvatar: Bool) {
        self.id = id
        self.name = content.name
        self.domain = content.domain
        self.description = content.description
        self.creatorName = content.creatorName
        self.greeting = content.greeting
        self.examples = content.examples
        self.hasAvatar = hasAvatar
    }
}
