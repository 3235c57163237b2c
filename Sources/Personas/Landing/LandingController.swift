import Foundation
import HearthPlatform
import HTTPTypes
import Hummingbird

/// The public pages of share links: `/p/{slug}` (HTML), its preview image and avatar, and the tenant's
/// `/.well-known/apple-app-site-association`. No client key, no sign-in: the slug or the host says which tenant.
public struct LandingController<Context: HearthRequestContextProtocol>: Sendable {
    let pages: LandingPages
    let html: HTMLPages

    public init(pages: LandingPages, html: HTMLPages) {
        self.pages = pages
        self.html = html
    }

    public func addRoutes(to router: Router<Context>) {
        router.get("p/:slug", use: page)
        router.get("p/:slug/preview.png", use: preview)
        router.get("p/:slug/avatar", use: avatar)
        router.get(".well-known/apple-app-site-association", use: siteAssociation)
    }

    /// A click is a person opening the page: link-preview fetchers (which read the Open Graph tags when a link is
    /// pasted into a chat) and the same browser again within a day are not counted.
    @Sendable func page(_ request: Request, context: Context) async throws -> Response {
        let slug = context.parameters.get("slug") ?? ""
        let repeatVisit = request.cookies[Self.seenCookie] != nil
        let countClick = !repeatVisit && !LinkVisitor.isAutomated(userAgent: request.headers[.userAgent])
        switch try await pages.page(slug: slug, host: request.head.authority, acceptLanguage: request.headers[.acceptLanguage],
                                    countClick: countClick) {
        case .persona(let page):
            var headers: HTTPFields = [.cacheControl: "no-cache"]
            if countClick {
                let secure = page.pageURL.hasPrefix("https:") ? "; Secure" : ""
                headers[.setCookie] = "\(Self.seenCookie)=1; Path=/p/\(slug); Max-Age=86400; HttpOnly; SameSite=Lax\(secure)"
            }
            return html.response("landing/persona", page, headers: headers)
        case .unavailable(let page):
            return html.response("landing/unavailable", page, status: page.status, headers: [.cacheControl: "no-cache"])
        }
    }

    @Sendable func preview(_ request: Request, context: Context) async throws -> Response {
        guard let (image, etag) = try await pages.preview(slug: context.parameters.get("slug") ?? "", host: request.head.authority) else {
            throw APIError.notFound()
        }
        return .cacheable(request, etag: etag, cacheControl: "public, max-age=3600", contentType: "image/png") { ByteBuffer(bytes: image.png()) }
    }

    @Sendable func avatar(_ request: Request, context: Context) async throws -> Response {
        guard let image = try await pages.avatar(slug: context.parameters.get("slug") ?? "", host: request.head.authority) else {
            throw APIError.notFound()
        }
        return Response(status: .ok, headers: [.contentType: image.kind, .cacheControl: "public, max-age=300", .xContentTypeOptions: "nosniff"],
                        body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    /// Served as JSON without a redirect, as Apple's CDN requires.
    @Sendable func siteAssociation(_ request: Request, context: Context) async throws -> Response {
        guard let document = try await pages.siteAssociation(host: request.head.authority) else { throw APIError.notFound() }
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                        body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }

    static var seenCookie: String { "hearth_seen" }
}

/// Who opened a link, as far as counting goes.
enum LinkVisitor {
    /// Link-preview fetchers and crawlers, by the names they give themselves; no name at all counts as one.
    static func isAutomated(userAgent: String?) -> Bool {
        guard let agent = userAgent?.lowercased(), !agent.isEmpty else { return true }
        return automatedMarks.contains { agent.contains($0) }
    }

    static let automatedMarks = [
        "bot", "crawler", "spider", "facebookexternalhit", "whatsapp", "preview", "embedly", "slurp", "vkshare", "pinterest",
        "headless", "curl/", "wget/", "python-requests", "go-http-client",
    ]
}
