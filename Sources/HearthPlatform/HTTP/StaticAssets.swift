import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The few static files pages use (stylesheets, the icon), read from `public/` once at startup and served from memory at
/// `/assets/{name}` with an ETag; a missing file stops the server at startup instead of unstyling its pages.
public struct StaticAssets: Sendable {
    /// Every page's: the icon browsers ask for (without one they fetch `/favicon.ico` and log its 404).
    public static let shared = ["favicon.svg"]

    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        let etag: String
    }

    let assets: [String: Asset]

    public static func load(directory: URL, names: [String]) throws -> StaticAssets {
        var assets: [String: Asset] = [:]
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
                throw ConfigError("the asset \(name) is missing from \(directory.path) (set HEARTH_RESOURCES_DIR)")
            }
            let type = switch (name as NSString).pathExtension {
            case "css": "text/css; charset=utf-8"
            case "png": "image/png"
            case "svg": "image/svg+xml"
            default: "application/octet-stream"
            }
            let digest = Secrets.hex(Array(SHA256.hash(data: data).prefix(12)))
            assets[name] = Asset(bytes: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        return StaticAssets(assets: assets)
    }

    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("assets/:name") { request, context in try serve(request, name: context.parameters.get("name") ?? "") }
    }

    func serve(_ request: Request, name: String) throws -> Response {
        guard let asset = assets[name] else { throw APIError.notFound() }
        return .cacheable(request, etag: asset.etag, cacheControl: "public, max-age=86400", contentType: asset.contentType) { asset.bytes }
    }
}

extension Response {
    /// A response its ETag validates: `304` with the same caching headers when `If-None-Match` names it, else the
    /// body, which is only built then.
    public static func cacheable(_ request: Request, etag: String, cacheControl: String, contentType: String,
                                 body: () throws -> ByteBuffer) rethrows -> Response {
        var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl, .xContentTypeOptions: "nosniff"]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: try body()))
    }
}
