import HearthPlatform
import Hummingbird

/// Reads `Authorization: Bearer …` and sets the request's identity. Behind it (`optional: false`, the default) a
/// request without the header is a 401 before any handler runs, so no route behind it can look anything up for a
/// caller it has not authenticated (a persona's existence, say). Only sign-up and Sign in with Apple sit behind an
/// optional one (`optional: true`): with a token they upgrade that account, without one they create an account. A
/// header that is present but wrong is always a 401, never silently ignored: an app whose anonymous token expired
/// must refresh and retry its upgrade, not get a new, empty account.
///
/// The same round trip counts the request against the tenant's and the person's rate limits; answers carry the
/// person's `RateLimit-Policy` and `RateLimit` fields, and an exceeded limit is a 429 before any handler runs.
///
/// The send (`POST /v1/threads/{id}/messages`) and the history page (`GET` of the same path) check their session in
/// their own first round trip instead (decisions 0015 and 0016): with `checkingSession: false` the token's
/// signature, expiry and tenant are checked here, the identity is set as
/// ``HearthRequestContextProtocol/uncheckedIdentity`` and nothing is counted; the route's first statement checks the
/// session and the limits before it reads or takes anything. Handlers that use
/// `requireIdentity()` get nothing from that mode, so no other route can skip the check by being put behind it.
public struct AccessTokenMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let accounts: AccountService
    let checkingSession: Bool
    let optional: Bool

    public init(accounts: AccountService, checkingSession: Bool = true, optional: Bool = false) {
        self.accounts = accounts
        self.checkingSession = checkingSession
        self.optional = optional
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.authorization] != nil else {
            guard optional else { throw APIError.accessTokenRequired }
            return try await next(request, context)
        }
        guard let token = request.headers.bearerToken else {
            throw APIError.unauthorized("access_token_invalid", "Use Authorization: Bearer <access token>.")
        }
        var context = context
        let tenant = try context.requireTenant()
        let identity: Identity
        var limit: RateLimit?
        if checkingSession {
            (identity, limit) = try await accounts.authenticate(tenant: tenant, bearer: token)
            context.identity = identity
        } else {
            identity = try await accounts.verify(tenant: tenant, bearer: token)
            context.uncheckedIdentity = identity
        }
        context.logger[metadataKey: "user_id"] = .string(identity.userID.uuidString.lowercased())
        return try await next(request, context).withRateLimitFields(limit)
    }
}
