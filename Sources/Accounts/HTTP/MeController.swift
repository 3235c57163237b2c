import Foundation
import HearthPlatform
import Hummingbird

/// `/v1/me*`: the signed-in user's own account, sessions, export and deletion.
public struct MeController<Context: HearthRequestContextProtocol>: Sendable {
    let accounts: AccountService
    let exportSections: [any ExportSection]

    public init(accounts: AccountService, exportSections: [any ExportSection]) {
        self.accounts = accounts
        self.exportSections = exportSections
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("me", use: show)
        group.delete("me", use: delete)
        group.get("me/export", use: export)
        group.get("me/sessions", use: sessions)
        group.delete("me/sessions/:id", use: revokeSession)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> AccountView {
        try await accounts.account(tenant: context.requireTenant(), identity: context.requireIdentity())
    }

    /// Apple requires in-app account deletion: everything goes, at once.
    @Sendable func delete(_ request: Request, context: Context) async throws -> Response {
        try await accounts.delete(tenant: context.requireTenant(), identity: context.requireIdentity())
        return Response(status: .noContent)
    }

    @Sendable func export(_ request: Request, context: Context) async throws -> EditedResponse<AccountExport> {
        let (tenant, identity) = (try context.requireTenant(), try context.requireIdentity())
        var export = try await accounts.export(tenant: tenant, identity: identity)
        for section in exportSections { export.sections[section.name] = try await section.export(tenant: tenant, identity: identity) }
        return EditedResponse(headers: [.contentDisposition: "attachment; filename=\"hearth-export.json\""], response: export)
    }

    @Sendable func sessions(_ request: Request, context: Context) async throws -> SessionList {
        SessionList(sessions: try await accounts.sessions(tenant: context.requireTenant(), identity: context.requireIdentity()))
    }

    @Sendable func revokeSession(_ request: Request, context: Context) async throws -> Response {
        let identity = try context.requireIdentity()
        guard let id = context.parameters.get("id", as: UUID.self) else {
            throw APIError.notFound("No such session.")
        }
        try await accounts.revokeSession(tenant: context.requireTenant(), identity: identity, sessionID: id)
        return Response(status: .noContent)
    }
}
