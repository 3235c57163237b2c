import Foundation
import HearthPlatform
import Hummingbird

/// `/console/sign-in` and `/console/sign-out`: the operator API's sign-in (argon2id, lockout, idle timeout) for a
/// browser, its token in the session cookie.
public struct ConsoleSessionController<Context: HearthRequestContextProtocol>: Sendable {
    struct SignInForm: Decodable {
        let email: String
        let password: String
        let csrf: String?
    }

    struct SignInPage {
        let chrome: Chrome
        let csrf: String
        let email: String
    }

    let sessions: OperatorSessions
    let pages: ConsolePages

    public init(sessions: OperatorSessions, pages: ConsolePages) {
        self.sessions = sessions
        self.pages = pages
    }

    /// `open`: no session needed; `signedIn`: behind ``ConsoleAuthMiddleware``.
    public func addRoutes(open: RouterGroup<Context>, signedIn: RouterGroup<Context>) {
        open.get("sign-in", use: form)
        open.post("sign-in", use: signIn)
        signedIn.post("sign-out", use: signOut)
    }

    @Sendable func form(_ request: Request, context: Context) async throws -> Response {
        page(context, email: "", problem: nil, status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: Context) async throws -> Response {
        let form = try await ConsoleForm.decode(SignInForm.self, from: request)
        guard let expected = request.cookies[ConsoleSecurity.signInCookie]?.value, let sent = form.csrf,
              Secrets.constantTimeEquals(Array(expected.utf8), Array(sent.utf8)) else {
            return page(context, email: form.email, problem: "This sign-in form has expired. Please try again.", status: .forbidden)
        }
        do {
            let signedIn = try await sessions.signIn(email: form.email, password: form.password)
            var response = Response.redirect(to: "/console")
            response.setCookie(pages.security.sessionCookie(signedIn.token))
            response.setCookie(ConsoleSecurity.expired(ConsoleSecurity.signInCookie))
            return response
        } catch let error as APIError where error.status == .unauthorized || error.status == .tooManyRequests {
            var response = page(context, email: form.email, problem: error.message, status: error.status)
            response.headers.append(contentsOf: error.headers)
            return response
        }
    }

    @Sendable func signOut(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireOperatorSession()
        _ = try await ConsoleForm.decode(ConsoleForm.Empty.self, from: request, context: context, checkingCSRFWith: pages.security)
        try await sessions.signOut(session)
        var response = Response.redirect(to: "/console/sign-in")
        response.setCookie(ConsoleSecurity.expired(ConsoleSecurity.sessionCookie))
        return response
    }

    /// The form with a fresh double-submit token, also set as a cookie.
    private func page(_ context: Context, email: String, problem: String?, status: HTTPResponse.Status) -> Response {
        let nonce = Secrets.randomToken(byteCount: 24)
        var response = pages.render("console/sign-in", SignInPage(chrome: pages.chrome(context, title: "Sign in", problem: problem),
                                                                  csrf: nonce, email: email), status: status)
        response.setCookie(pages.security.signInCookie(nonce))
        return response
    }
}
