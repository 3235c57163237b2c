import HearthPlatform
import Hummingbird

/// Signs the console's pages in from the session cookie. A browser without a live session is sent to the sign-in
/// page (303), not shown an error: an idle timeout is the ordinary way a console session ends.
public struct ConsoleAuthMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let sessions: OperatorSessions

    public init(sessions: OperatorSessions) {
        self.sessions = sessions
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = request.cookies[ConsoleSecurity.sessionCookie]?.value,
              let session = try await sessions.authenticate(token: token) else {
            var response = Response.redirect(to: "/console/sign-in", type: .normal)
            response.setCookie(ConsoleSecurity.expired(ConsoleSecurity.sessionCookie))
            return response
        }
        var context = context
        context.attach(session)
        return try await next(request, context)
    }
}

/// Errors on console pages as pages: the status and message of the API's error shape, in the console's frame.
public struct ConsoleErrorMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    let pages: ConsolePages

    public init(pages: ConsolePages) {
        self.pages = pages
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return pages.render("console/error", ErrorPage(chrome: pages.chrome(context, title: "Something went wrong"),
                                                             status: Int(error.status.code), message: error.message), status: error.status)
        } catch let error as HTTPError where error.status == .notFound {
            return pages.render("console/error", ErrorPage(chrome: pages.chrome(context, title: "Not found"), status: 404,
                                                           message: "There is no such page."), status: .notFound)
        }
    }
}
