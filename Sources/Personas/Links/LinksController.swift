import Foundation
import HearthPlatform
import Hummingbird

/// Share links for apps (docs/api.md, "Share links"): sharing a persona, reading a link's counts, rotating and
/// revoking, and the app's side of a link: opening it and starting a session from it.
public struct LinksController<Context: HearthRequestContextProtocol>: Sendable {
    struct LinkList: ResponseEncodable {
        let links: [PersonaLinks.LinkView]
    }

    let links: PersonaLinks

    public init(links: PersonaLinks) {
        self.links = links
    }

    /// `signedIn`: routes for a signed-in person; `public`: the client key is enough.
    public func addRoutes(public: RouterGroup<Context>, signedIn: RouterGroup<Context>) {
        signedIn.post("personas/:personaID/links", use: share)
        signedIn.get("personas/:personaID/links", use: list)
        signedIn.post("links/:slug/rotate", use: rotate)
        signedIn.delete("links/:slug", use: revoke)
        signedIn.post("links/:slug/start", use: start)
        `public`.post("links/:slug/open", use: open)
    }

    @Sendable func share(_ request: Request, context: Context) async throws -> EditedResponse<PersonaLinks.LinkView> {
        let (link, created) = try await links.share(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                                    personaID: PersonasController<Context>.personaID(context))
        return EditedResponse(status: created ? .created : .ok, response: link)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> LinkList {
        LinkList(links: try await links.links(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                              personaID: PersonasController<Context>.personaID(context)))
    }

    @Sendable func rotate(_ request: Request, context: Context) async throws -> EditedResponse<PersonaLinks.LinkView> {
        let link = try await links.rotate(tenant: context.requireTenant(), identity: context.requireIdentity(), slug: Self.slug(context))
        return EditedResponse(status: .created, response: link)
    }

    @Sendable func revoke(_ request: Request, context: Context) async throws -> Response {
        try await links.revoke(tenant: context.requireTenant(), identity: context.requireIdentity(), slug: Self.slug(context))
        return Response(status: .noContent)
    }

    @Sendable func open(_ request: Request, context: Context) async throws -> PersonaCard {
        try await links.open(tenant: context.requireTenant(), slug: Self.slug(context))
    }

    @Sendable func start(_ request: Request, context: Context) async throws -> EditedResponse<PersonaLinks.Started> {
        let started = try await links.start(tenant: context.requireTenant(), identity: context.requireIdentity(), slug: Self.slug(context))
        return EditedResponse(status: started.isNew ? .created : .ok, response: started)
    }

    static func slug(_ context: Context) throws -> String {
        guard let slug = context.parameters.get("slug") else { throw PersonaLinks.noLink }
        return slug
    }
}

extension PersonaLinks.LinkView: ResponseEncodable {}
extension PersonaLinks.Started: ResponseEncodable {}
extension PersonaCard: ResponseEncodable {}
