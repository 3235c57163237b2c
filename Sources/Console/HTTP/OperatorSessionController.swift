import Foundation
import HearthPlatform
import Hummingbird

/// `/operator/v1/sessions` and `/operator/v1/me`: operator sign-in and sign-out (docs/api.md, "Operator API").
public struct OperatorSessionController<Context: HearthRequestContextProtocol>: Sendable {
    struct Credentials: Decodable {
        let email: String
        let password: String
    }

    struct OperatorView: ResponseEncodable {
        let id: UUID
        let email: String
        let role: String
        let tenantID: UUID?

        init(_ account: Operator) {
            (id, email, role, tenantID) = (account.id, account.email, account.role.rawValue, account.tenantID)
        }
    }

    struct SessionView: ResponseEncodable {
        let token: String
        let expiresAt: Date
        let idleTimeoutSeconds: Int64
        let `operator`: OperatorView
    }

    let sessions: OperatorSessions

    public init(sessions: OperatorSessions) {
        self.sessions = sessions
    }

    /// `open` takes sign-in; `signedIn` is guarded by ``OperatorAuthMiddleware``.
    public func addRoutes(open: RouterGroup<Context>, signedIn: RouterGroup<Context>) {
        open.post("sessions", use: signIn)
        signedIn.delete("sessions/current", use: signOut)
        signedIn.get("me", use: me)
    }

    @Sendable func signIn(_ request: Request, context: Context) async throws -> EditedResponse<SessionView> {
        let credentials = try await request.decode(as: Credentials.self, context: context)
        guard !credentials.email.isEmpty, credentials.email.count <= 254, !credentials.password.isEmpty, credentials.password.count <= 1024 else {
            throw APIError.validation("Give an email and a password.")
        }
        let signedIn = try await sessions.signIn(email: credentials.email, password: credentials.password)
        return EditedResponse(status: .created, response: SessionView(
            token: signedIn.token, expiresAt: signedIn.expiresAt,
            idleTimeoutSeconds: sessions.policy.idleTimeout.components.seconds, operator: OperatorView(signedIn.session.account)
        ))
    }

    @Sendable func signOut(_ request: Request, context: Context) async throws -> Response {
        try await sessions.signOut(context.requireOperatorSession())
        return Response(status: .noContent)
    }

    @Sendable func me(_ request: Request, context: Context) async throws -> OperatorView {
        OperatorView(try context.requireOperatorSession().account)
    }
}
