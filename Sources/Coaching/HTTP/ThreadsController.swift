import CoachingDomains
import Foundation
import HearthPlatform
import Hummingbird
import Personas

/// `/v1/threads`: create, list, read, rename and delete threads.
public struct ThreadsController<Context: HearthRequestContextProtocol>: Sendable {
    struct CreateRequest: Decodable {
        let sessionType: SessionType?
        let domain: String?
        /// A live persona of the app's to be coached by; the thread takes its domain.
        let personaID: UUID?
        let title: String?
    }

    struct RenameRequest: Decodable {
        let title: String?
    }

    struct Deleted: ResponseEncodable {
        let deleted: Int
    }

    let conversations: Conversations
    let domains: CoachingDomains
    let personas: Personas

    public init(conversations: Conversations, domains: CoachingDomains, personas: Personas) {
        self.conversations = conversations
        self.domains = domains
        self.personas = personas
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.post("threads", use: create)
        group.get("threads", use: list)
        group.delete("threads", use: deleteAll)
        group.get("threads/:threadID", use: show)
        group.patch("threads/:threadID", use: rename)
        group.delete("threads/:threadID", use: delete)
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> EditedResponse<ThreadView> {
        let body = try await request.decode(as: CreateRequest.self, context: context)
        let tenant = try context.requireTenant()
        var domain = try Self.validDomain(body.domain)
        if let personaID = body.personaID {
            guard let persona = try await personas.published(tenantID: tenant.id, id: personaID) else {
                throw APIError.notFound("No such persona, or it is not available.")
            }
            guard domain == nil || domain == persona.domain else {
                throw APIError.validation("A persona coaches in its own domain ('\(persona.domain)'): leave domain out.")
            }
            domain = persona.domain
        } else if let domain, try await domains.currentCatalog(tenantID: tenant.id).definition(domain) == nil {
            throw APIError.validation("domain '\(domain)' is not one of this app's coaching domains (GET /v1/domains).")
        }
        let thread = try await conversations.create(
            tenant: tenant, identity: context.requireIdentity(), sessionType: body.sessionType ?? .freeform, domain: domain,
            personaID: body.personaID, title: try Self.validTitle(body.title)
        )
        return EditedResponse(status: .created, response: thread)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> ThreadList {
        let page = try PageParameters(request.uri.queryParameters)
        return try await conversations.list(tenant: context.requireTenant(), identity: context.requireIdentity(), limit: page.limit, cursor: page.cursor)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> ThreadView {
        try await conversations.thread(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.threadID(context))
    }

    @Sendable func rename(_ request: Request, context: Context) async throws -> ThreadView {
        let body = try await request.decode(as: RenameRequest.self, context: context)
        return try await conversations.rename(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                              id: Self.threadID(context), title: try Self.validTitle(body.title))
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        try await conversations.delete(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.threadID(context))
        return Response(status: .noContent)
    }

    @Sendable func deleteAll(_ request: Request, context: Context) async throws -> Deleted {
        Deleted(deleted: try await conversations.deleteAll(tenant: context.requireTenant(), identity: context.requireIdentity()))
    }

    static func threadID(_ context: Context) throws -> UUID {
        guard let id = context.parameters.get("threadID", as: UUID.self) else { throw Conversations.noThread }
        return id
    }

    static func validTitle(_ title: String?) throws -> String? {
        guard let title = title?.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty else { return nil }
        guard title.count <= 200 else { throw APIError.validation("Thread titles can be at most 200 characters.") }
        return title
    }

    /// A domain name: lowercase letters, digits, `-` and `_`, starting with a letter (then checked against the
    /// tenant's enabled domains).
    static func validDomain(_ domain: String?) throws -> String? {
        guard let domain else { return nil }
        guard let first = domain.first, first.isASCII, first.isLowercase, domain.count <= 32,
              domain.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw APIError.validation("domain must be 1 to 32 lowercase letters, digits, - or _, starting with a letter.") }
        return domain
    }
}

/// `limit` (1–100, default 50) and `cursor` query parameters.
struct PageParameters {
    let limit: Int
    let cursor: Cursor?

    init(_ query: Parameters) throws {
        if let raw = query.get("limit") {
            guard let limit = Int(raw), (1...100).contains(limit) else { throw APIError.validation("limit must be a whole number from 1 to 100.") }
            self.limit = limit
        } else {
            limit = 50
        }
        if let raw = query.get("cursor") {
            guard let cursor = Cursor(raw) else { throw APIError.validation("cursor is not one this API returned.") }
            self.cursor = cursor
        } else {
            cursor = nil
        }
    }
}
