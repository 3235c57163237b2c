import Foundation
import HearthPlatform
import Hummingbird

/// `/v1/auth/*`: sign-up, sign-in, refresh and logout.
public struct AuthController<Context: HearthRequestContextProtocol>: Sendable {
    struct EmailCredentials: Decodable {
        let email: String
        let password: String
    }

    struct AppleSignIn: Decodable {
        let identityToken: String
        let nonce: String
    }

    struct RefreshRequest: Decodable {
        let refreshToken: String
    }

    let accounts: AccountService
    /// Sign-ups (anonymous, email, Apple) and email sign-ins per client address, before any work is done.
    let addressLimits: AddressLimits

    public init(accounts: AccountService, addressLimits: AddressLimits) {
        self.accounts = accounts
        self.addressLimits = addressLimits
    }

    /// - Parameters:
    ///   - public: routes that ignore `Authorization` (an app refreshing because its access token expired
    ///     often still sends that token).
    ///   - maybeSignedIn: behind an optional token: sign-up and Apple upgrade the caller's account when there is one.
    ///   - signedIn: behind a required token (logout).
    public func addRoutes(public: RouterGroup<Context>, maybeSignedIn: RouterGroup<Context>, signedIn: RouterGroup<Context>) {
        `public`.post("auth/anonymous", use: anonymous)
        `public`.post("auth/email/login", use: logIn)
        `public`.post("auth/refresh", use: refresh)
        maybeSignedIn.post("auth/email/signup", use: signUp)
        maybeSignedIn.post("auth/apple", use: apple)
        signedIn.post("auth/logout", use: logOut)
    }

    @Sendable func anonymous(_ request: Request, context: Context) async throws -> EditedResponse<TokenGrant> {
        try await addressLimits.take(.signUp, tenantID: context.requireTenant().id, address: context.remoteAddress)
        return EditedResponse(status: .created, response: try await accounts.createAnonymous(tenant: context.requireTenant()))
    }

    /// With an anonymous user's access token this upgrades that account; without, it creates one.
    @Sendable func signUp(_ request: Request, context: Context) async throws -> EditedResponse<TokenGrant> {
        let body = try await request.decode(as: EmailCredentials.self, context: context)
        try await addressLimits.take(.signUp, tenantID: context.requireTenant().id, address: context.remoteAddress)
        let grant = try await accounts.signUp(
            tenant: context.requireTenant(), email: body.email, password: body.password, current: context.identity
        )
        return EditedResponse(status: grant.isNewUser ? .created : .ok, response: grant)
    }

    @Sendable func logIn(_ request: Request, context: Context) async throws -> TokenGrant {
        let body = try await request.decode(as: EmailCredentials.self, context: context)
        try await addressLimits.take(.logIn, tenantID: context.requireTenant().id, address: context.remoteAddress)
        return try await accounts.logIn(
            tenant: context.requireTenant(), email: body.email, password: body.password, address: context.remoteAddress
        )
    }

    @Sendable func apple(_ request: Request, context: Context) async throws -> EditedResponse<TokenGrant> {
        let body = try await request.decode(as: AppleSignIn.self, context: context)
        guard !body.nonce.isEmpty, body.nonce.count <= 256 else {
            throw APIError.validation("Send the raw nonce your app generated for this sign-in.")
        }
        try await addressLimits.take(.signUp, tenantID: context.requireTenant().id, address: context.remoteAddress)
        let grant = try await accounts.signInWithApple(
            tenant: context.requireTenant(), identityToken: body.identityToken, nonce: body.nonce, current: context.identity
        )
        return EditedResponse(status: grant.isNewUser ? .created : .ok, response: grant)
    }

    @Sendable func refresh(_ request: Request, context: Context) async throws -> TokenGrant {
        let body = try await request.decode(as: RefreshRequest.self, context: context)
        return try await accounts.refresh(tenant: context.requireTenant(), refreshToken: body.refreshToken)
    }

    @Sendable func logOut(_ request: Request, context: Context) async throws -> Response {
        try await accounts.logOut(tenant: context.requireTenant(), identity: context.requireIdentity())
        return Response(status: .noContent)
    }
}
