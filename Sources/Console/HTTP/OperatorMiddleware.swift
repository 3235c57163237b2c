import HearthPlatform
import Hummingbird

/// Requires a live operator session on every `/operator/v1` route it guards: `Authorization: Bearer hos_…`.
/// Missing, unknown, idle, expired or revoked all answer 401, so the caller signs in again.
public struct OperatorAuthMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let sessions: OperatorSessions

    public init(sessions: OperatorSessions) {
        self.sessions = sessions
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = request.headers.bearerToken else { throw APIError.operatorSignInRequired }
        guard let session = try await sessions.authenticate(token: token) else {
            throw APIError.unauthorized("operator_session_invalid", "This operator session has ended. Sign in again.")
        }
        var context = context
        context.attach(session)
        return try await next(request, context)
    }
}

extension HearthRequestContextProtocol {
    /// The operator behind this request, for the routes and the log lines that follow.
    mutating func attach(_ session: OperatorSession) {
        operatorSession = session
        logger[metadataKey: "operator_id"] = .string(session.account.id.uuidString.lowercased())
    }
}

/// Resolves the `:tenant` slug of `/operator/v1/tenants/:tenant/…` into the request's tenant, for operators who
/// work there (a platform admin anywhere). To anyone else the tenant does not exist: 404, not 403, so one
/// tenant's staff cannot list another's slugs. Each route then checks its own permission.
public struct OperatorTenantMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let tenants: TenantStore

    public init(tenants: TenantStore) {
        self.tenants = tenants
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let slug = context.parameters.get("tenant") ?? ""
        let account = try context.requireOperatorSession().account
        guard let tenant = try await tenants.find(slug: slug), account.may(.view, in: tenant.id) else {
            throw APIError(.notFound, code: "tenant_not_found", message: "No tenant '\(slug)' that you work in.")
        }
        var context = context
        context.tenant = tenant
        context.logger[metadataKey: "tenant_id"] = .string(tenant.id.uuidString.lowercased())
        return try await next(request, context)
    }
}
