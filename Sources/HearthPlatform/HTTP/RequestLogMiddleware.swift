import Foundation
import Hummingbird
import Logging

/// Gives each request an id (the caller's `X-Request-ID` if it is sane, else a new one), puts it in the
/// logger metadata and the response, and writes one access-log line.
///
/// The line names the matched route pattern (`/v1/me/sessions/{id}`), never the raw URI or query, so
/// nothing a user typed reaches the logs.
public struct RequestLogMiddleware<Context: HearthRequestContextProtocol>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let requestID = request.headers[.requestID].flatMap(Self.acceptable) ?? Secrets.randomHex(byteCount: 12)
        context.requestID = requestID
        context.logger[metadataKey: "request_id"] = .string(requestID)
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = APIError(translating: error).makeResponse()
        }
        response.headers[.requestID] = requestID
        let elapsed = ContinuousClock.now - started
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "route": .string(context.endpointPath ?? "unmatched"),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .stringConvertible(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000
                    + Double(elapsed.components.seconds) * 1000),
            ]
        )
        return response
    }

    /// Accept a client-supplied id only if it cannot smuggle anything into logs or headers.
    static func acceptable(_ value: String) -> String? {
        guard (8...64).contains(value.count),
              value.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "_" || $0 == "." })
        else { return nil }
        return value
    }
}
