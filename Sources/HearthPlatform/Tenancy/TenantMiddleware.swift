import Hummingbird

/// Resolves the tenant from the `X-Hearth-Client-Key` header on every API request.
public struct TenantMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let directory: TenantDirectory

    public init(directory: TenantDirectory) {
        self.directory = directory
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.headers[.clientKey], !key.isEmpty else {
            throw APIError.unauthorized("client_key_missing", "Send your app's client key in the X-Hearth-Client-Key header.")
        }
        guard key.count <= 128 else {
            throw APIError.unauthorized("client_key_invalid", "This client key is not recognised.")
        }
        switch try await directory.lookup(clientKey: key) {
        case .active(let tenant):
            var context = context
            context.tenant = tenant
            context.logger[metadataKey: "tenant_id"] = .string(tenant.id.uuidString.lowercased())
            return try await next(request, context)
        case .revoked:
            throw APIError.unauthorized("client_key_revoked", "This client key has been revoked. Update the app to a current key.")
        case .unknown:
            throw APIError.unauthorized("client_key_invalid", "This client key is not recognised.")
        }
    }
}
