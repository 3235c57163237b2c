import Foundation
import HearthPlatform
import Hummingbird
import NIOCore

/// `/v1/personas`: a signed-in user's own personas (docs/api.md).
public struct PersonasController<Context: HearthRequestContextProtocol>: Sendable {
    struct PersonaList: ResponseEncodable {
        let personas: [PersonaView]
    }

    let personas: Personas

    public init(personas: Personas) {
        self.personas = personas
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.post("personas", use: create)
        group.get("personas", use: list)
        group.get("personas/:personaID", use: show)
        group.put("personas/:personaID", use: update)
        group.delete("personas/:personaID", use: delete)
        group.post("personas/:personaID/submit", use: submit)
        group.put("personas/:personaID/avatar", use: setAvatar)
        group.get("personas/:personaID/avatar", use: avatar)
        group.delete("personas/:personaID/avatar", use: removeAvatar)
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> EditedResponse<PersonaView> {
        let content = try await request.decode(as: PersonaContent.self, context: context)
        let persona = try await personas.create(tenant: context.requireTenant(), identity: context.requireIdentity(), content: content)
        return EditedResponse(status: .created, response: persona)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> PersonaList {
        PersonaList(personas: try await personas.list(tenant: context.requireTenant(), identity: context.requireIdentity()))
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> PersonaView {
        try await personas.persona(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context))
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> PersonaView {
        let content = try await request.decode(as: PersonaContent.self, context: context)
        return try await personas.update(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context),
                                         content: content)
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        try await personas.delete(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context))
        return Response(status: .noContent)
    }

    @Sendable func submit(_ request: Request, context: Context) async throws -> PersonaView {
        try await personas.submit(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context))
    }

    /// The image is the request body, its type in `Content-Type` (checked against the bytes).
    @Sendable func setAvatar(_ request: Request, context: Context) async throws -> PersonaView {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: AvatarImage.maximumBytes)
        } catch is NIOTooManyBytesError {
            throw AvatarImage.tooLarge
        }
        return try await personas.setAvatar(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context),
                                            bytes: Array(buffer: body), contentType: request.headers[.contentType])
    }

    @Sendable func avatar(_ request: Request, context: Context) async throws -> Response {
        let image = try await personas.avatar(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context))
        return Response(status: .ok, headers: [.contentType: image.kind.rawValue, .cacheControl: "private, no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    @Sendable func removeAvatar(_ request: Request, context: Context) async throws -> PersonaView {
        try await personas.removeAvatar(tenant: context.requireTenant(), identity: context.requireIdentity(), id: Self.personaID(context))
    }

    static func personaID(_ context: Context) throws -> UUID {
        guard let id = context.parameters.get("personaID", as: UUID.self) else { throw Personas.notFound }
        return id
    }
}

extension PersonaView: ResponseEncodable {}
