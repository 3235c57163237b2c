import Foundation
import HearthPlatform
import Hummingbird

/// `/v1/me/context`: the signed-in user's context profile.
public struct ContextController<Context: HearthRequestContextProtocol>: Sendable {
    let profiles: ContextProfiles

    public init(profiles: ContextProfiles) {
        self.profiles = profiles
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("me/context", use: show)
        group.patch("me/context", use: update)
        group.delete("me/context", use: deleteAll)
        group.delete("me/context/:field", use: deleteField)
        group.post("me/context/setup-prompt/dismiss", use: dismissSetupPrompt)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> ContextProfileView {
        try await profiles.show(tenant: context.requireTenant(), identity: context.requireIdentity())
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> ContextProfileView {
        let patch = try await request.decode(as: [String: PatchValue].self, context: context)
        return try await profiles.update(tenant: context.requireTenant(), identity: context.requireIdentity(), patch: patch)
    }

    @Sendable func deleteField(_ request: Request, context: Context) async throws -> ContextProfileView {
        guard let field = context.parameters.get("field").flatMap(ContextProfile.Field.init(rawValue:)) else {
            throw APIError.notFound("No such context field.")
        }
        return try await profiles.remove(field, tenant: context.requireTenant(), identity: context.requireIdentity())
    }

    @Sendable func deleteAll(_ request: Request, context: Context) async throws -> Response {
        try await profiles.removeAll(tenant: context.requireTenant(), identity: context.requireIdentity())
        return Response(status: .noContent)
    }

    @Sendable func dismissSetupPrompt(_ request: Request, context: Context) async throws -> Response {
        try await profiles.dismissSetupPrompt(tenant: context.requireTenant(), identity: context.requireIdentity())
        return Response(status: .noContent)
    }
}
