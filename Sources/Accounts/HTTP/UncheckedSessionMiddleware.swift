import HearthPlatform
import Hummingbird

/// The access-token check of a send (`POST /v1/threads/{id}/messages`), the hot path's one route that checks its
/// session in its own first round trip instead (decision 0015): the token's signature, expiry and tenant are
/// checked here and the identity is set as ``HearthRequestContextProtocol/uncheckedIdentity``; the turn's context
/// read then checks the session and counts the request against the rate limits before it reads or takes
/// anything. Handlers that use `requireIdentity()` get nothing from this middleware, so no other route can skip
/// the session check by being put behind it.
public struct UncheckedSessionMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let accounts: AccountService

    public init(accounts: AccountService) {
        self.accounts = accounts
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.authorization] != nil else {
            throw APIError.unauthorized("authentication_required", "Send an access token: Authorization: Bearer <token>.")
        }
        guard let token = request.headers.bearerToken else {
            throw APIError.unauthorized("access_token_invalid", "Use Authorization: Bearer <access token>.")
        }
        var context = context
        let identity = try await accounts.verify(tenant: context.requireTenant(), bearer: token)
        context.uncheckedIdentity = identity
        context.logger[metadataKey: "user_id"] = .string(identity.userID.uuidString.lowercased())
        return try await next(request, context)
    }
}
