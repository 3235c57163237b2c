import HearthPlatform
import Hummingbird

/// Reads `Authorization: Bearer …` when present and sets the request's identity. A missing header is fine
/// here (sign-up can run with or without a user); routes that need one call `requireIdentity()`. A header
/// that is present but wrong is always a 401, never silently ignored: an app whose anonymous token expired
/// must refresh and retry its upgrade, not get a new, empty account.
///
/// The same round trip counts the request against the tenant's and the person's rate limits; answers carry the
/// person's `RateLimit-Policy` and `RateLimit` fields, and an exceeded limit is a 429 before any handler runs.
public struct AccessTokenMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let accounts: AccountService

    public init(accounts: AccountService) {
        self.accounts = accounts
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.authorization] != nil else { return try await next(request, context) }
        guard let token = request.headers.bearerToken else {
            throw APIError.unauthorized("access_token_invalid", "Use Authorization: Bearer <access token>.")
        }
        var context = context
        let (identity, limit) = try await accounts.authenticate(tenant: context.requireTenant(), bearer: token)
        context.identity = identity
        context.logger[metadataKey: "user_id"] = .string(identity.userID.uuidString.lowercased())
        var response = try await next(request, context)
        for field in limit.headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
