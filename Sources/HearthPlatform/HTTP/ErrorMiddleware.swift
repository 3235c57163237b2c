import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO

/// Turns every error into the JSON error shape, so clients never see Hummingbird's default bodies, a stack
/// trace, or a 500 for something they sent. Unknown errors are logged (with the request id) and hidden.
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = APIError(translating: error)
            if apiError.status.code >= 500 {
                context.logger.error("request failed", metadata: ["error": .error(error)])
            }
            return apiError.makeResponse()
        }
    }
}

extension APIError {
    /// Maps any error to what the client sees; unknown errors become `internal_error`.
    public init(translating error: any Error) {
        self = Self.translate(error)
    }

    static func translate(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case is NIOTooManyBytesError:
            return Self.tooLarge
        case let error as HTTPError:
            return translate(error)
        case let error as any HTTPResponseError where error.status.code < 500:
            return APIError(error.status, code: Self.code(for: error.status), message: error.status.reasonPhrase)
        case let error as DatabaseUnavailable:
            return databaseUnavailable(retryAfter: error.retryAfterSeconds)
        case let error as PostgresTransactionError:
            // The statement's own failure decides (a failed COMMIT is the transaction's).
            guard let cause = error.closureError ?? error.commitError ?? error.beginError else { return internalError }
            return translate(cause)
        case let error as PSQLError where error.sqlState == "23503":
            // A write whose parent row went while it ran (the account deleted beside it, say): what it named is gone.
            return notFound("It no longer exists.")
        default:
            // A connection to Postgres that failed under a statement: the next request may well succeed.
            return DatabaseOutage.isConnectionFailure(error) ? databaseUnavailable(retryAfter: 1) : internalError
        }
    }

    static func databaseUnavailable(retryAfter seconds: Int) -> APIError {
        APIError(.serviceUnavailable, code: "database_unavailable", message: "The service is briefly unavailable. Please try again shortly.",
                 headers: [.retryAfter: String(max(1, seconds))])
    }

    static let tooLarge = APIError(.contentTooLarge, code: "payload_too_large", message: "The request body is too large.")

    static func translate(_ error: HTTPError) -> APIError {
        switch error.status {
        case .notFound:
            return notFound("No such route. See /openapi.yaml for the API.")
        case .contentTooLarge:
            return tooLarge
        case .badRequest:
            // Hummingbird's decoder explains which field is wrong; that is safe to pass on.
            return badRequest("invalid_body", error.body ?? "The request body is not valid JSON.")
        default:
            if error.status.code >= 500 { return .internalError }
            return APIError(error.status, code: code(for: error.status), message: error.body ?? error.status.reasonPhrase)
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status {
        case .methodNotAllowed: "method_not_allowed"
        case .unsupportedMediaType: "unsupported_media_type"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        default: status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
        }
    }
}
