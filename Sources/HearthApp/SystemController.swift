import Foundation
import HearthPlatform
import Hummingbird

/// Unauthenticated operational routes: liveness, readiness, metrics and the API contract.
struct SystemController<Context: HearthRequestContextProtocol>: Sendable {
    struct Status: ResponseEncodable { let status: String }

    let database: Database
    let openAPIDocument: String

    func addRoutes(to router: Router<Context>) {
        router.get("healthz", use: health)
        router.get("readyz", use: ready)
        router.get("metrics", use: metrics)
        router.get("openapi.yaml", use: openAPI)
    }

    /// The process is up and answering.
    @Sendable func health(_ request: Request, context: Context) async throws -> Status {
        Status(status: "ok")
    }

    /// Ready for traffic: Postgres answers.
    @Sendable func ready(_ request: Request, context: Context) async throws -> Status {
        guard await database.isReachable() else {
            throw APIError(.serviceUnavailable, code: "not_ready", message: "The database is not reachable.")
        }
        return Status(status: "ready")
    }

    @Sendable func metrics(_ request: Request, context: Context) async throws -> Response {
        text(HearthMetrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    @Sendable func openAPI(_ request: Request, context: Context) async throws -> Response {
        text(openAPIDocument, contentType: "application/yaml; charset=utf-8")
    }

    private func text(_ body: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
