import Foundation
import HearthPlatform
import Hummingbird

/// `/operator/v1/tenants/{tenant}/personas/…`: the moderation API (FR46) the console's pages are built on.
/// Every role may read the queue and a persona's history; deciding takes a moderator or an admin. Each decision
/// is recorded with the operator who took it (``PersonaModeration``).
public struct ModerationController<Context: HearthRequestContextProtocol>: Sendable {
    struct Queue: ResponseEncodable {
        let personas: [PersonaView]
    }

    struct Detail: ResponseEncodable {
        let persona: PersonaView
        let history: [PersonaReview]
    }

    struct Approval: Decodable {
        /// The revision the moderator read: a newer one (the creator edited meanwhile) is a 409.
        let revision: Int
    }

    struct Rejection: Decodable {
        let revision: Int
        let reason: String
    }

    struct Suspension: Decodable {
        let reason: String
    }

    let moderation: PersonaModeration

    public init(moderation: PersonaModeration) {
        self.moderation = moderation
    }

    /// `group` is a tenant's operator group: signed in, its tenant resolved and visible to the operator.
    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("personas/queue", use: queue)
        group.get("personas/:personaID", use: show)
        group.post("personas/:personaID/approve", use: approve)
        group.post("personas/:personaID/reject", use: reject)
        group.post("personas/:personaID/suspend", use: suspend)
        group.post("personas/:personaID/reinstate", use: reinstate)
    }

    @Sendable func queue(_ request: Request, context: Context) async throws -> Queue {
        _ = try context.requireOperator(.view)
        return Queue(personas: try await moderation.queue(tenantID: context.requireTenant().id))
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Detail {
        _ = try context.requireOperator(.view)
        let (persona, history) = try await moderation.persona(tenantID: context.requireTenant().id, id: Self.personaID(context))
        return Detail(persona: persona, history: history)
    }

    @Sendable func approve(_ request: Request, context: Context) async throws -> PersonaView {
        let moderator = try Self.moderator(context)
        let body = try await request.decode(as: Approval.self, context: context)
        return try await moderation.approve(tenantID: context.requireTenant().id, id: Self.personaID(context), revision: body.revision, by: moderator)
    }

    @Sendable func reject(_ request: Request, context: Context) async throws -> PersonaView {
        let moderator = try Self.moderator(context)
        let body = try await request.decode(as: Rejection.self, context: context)
        return try await moderation.reject(tenantID: context.requireTenant().id, id: Self.personaID(context), revision: body.revision,
                                           note: body.reason, by: moderator)
    }

    @Sendable func suspend(_ request: Request, context: Context) async throws -> PersonaView {
        let moderator = try Self.moderator(context)
        let body = try await request.decode(as: Suspension.self, context: context)
        return try await moderation.suspend(tenantID: context.requireTenant().id, id: Self.personaID(context), note: body.reason, by: moderator)
    }

    @Sendable func reinstate(_ request: Request, context: Context) async throws -> PersonaView {
        try await moderation.reinstate(tenantID: context.requireTenant().id, id: Self.personaID(context), by: Self.moderator(context))
    }

    static func moderator(_ context: Context) throws -> Operator {
        try context.requireOperator(.moderate)
    }

    static func personaID(_ context: Context) throws -> UUID {
        try PersonasController<Context>.personaID(context)
    }
}
