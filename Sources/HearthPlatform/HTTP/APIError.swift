import Foundation
import HTTPTypes
import Hummingbird

/// The one error shape every failure takes on the wire: `{"error":{"code":"…","message":"…"}}`.
///
/// `code` is stable and machine-readable (apps branch on it); `message` is for people and never carries
/// internals. Features throw these; anything else becomes a logged `internal_error`.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public static func badRequest(_ code: String = "bad_request", _ message: String) -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    public static func validation(_ message: String) -> APIError {
        APIError(.unprocessableContent, code: "validation_failed", message: message)
    }

    public static func unauthorized(_ code: String, _ message: String) -> APIError {
        APIError(.unauthorized, code: code, message: message)
    }

    public static func notFound(_ message: String = "Not found.") -> APIError {
        APIError(.notFound, code: "not_found", message: message)
    }

    /// `retryAfter`: when the conflict will have ended, if that is known.
    public static func conflict(_ code: String, _ message: String, retryAfter seconds: Int? = nil) -> APIError {
        APIError(.conflict, code: code, message: message, headers: seconds.map { [.retryAfter: String(max(1, $0))] } ?? [:])
    }

    public static func tooManyRequests(_ code: String, _ message: String, retryAfter seconds: Int) -> APIError {
        APIError(.tooManyRequests, code: code, message: message, headers: [.retryAfter: String(max(1, seconds))])
    }

    /// The access token is valid but its session has ended (signed out, revoked, or the account deleted).
    public static let sessionRevoked = APIError.unauthorized("session_revoked", "This session has been signed out. Sign in again.")

    /// A signed-in route asked without an access token.
    public static let accessTokenRequired = APIError.unauthorized(
        "authentication_required", "Send an access token: Authorization: Bearer <token>."
    )

    public static let operatorSignInRequired = APIError.unauthorized(
        "authentication_required", "Sign in as an operator: Authorization: Bearer <token>."
    )

    public static let internalError = APIError(
        .internalServerError, code: "internal_error", message: "Something went wrong on our side. Please try again."
    )

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        makeResponse()
    }

    public func makeResponse() -> Response {
        Response(status: status, headers: responseHeaders, body: .init(byteBuffer: body))
    }

    /// The headers of the answer: the error's own and the JSON content type.
    var responseHeaders: HTTPFields {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return fields
    }

    /// `{"error":{"code":…,"message":…}}`.
    var body: ByteBuffer {
        struct Body: Encodable {
            struct Detail: Encodable { let code: String; let message: String }
            let error: Detail
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return ByteBuffer(bytes: (try? encoder.encode(Body(error: .init(code: code, message: message)))) ?? Data())
    }
}

extension HTTPField.Name {
    public static let retryAfter = HTTPField.Name("Retry-After")!
    public static let requestID = HTTPField.Name("X-Request-ID")!
    public static let clientKey = HTTPField.Name("X-Hearth-Client-Key")!
}

/// Its message alone: what a command (`hearth tenant limits …`) prints when the same check refuses it, rather
/// than the struct's fields.
extension APIError: CustomStringConvertible {
    public var description: String { message }
}
