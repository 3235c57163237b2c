import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// Server-rendered pages: Mustache templates from `templates/`, filled from typed view models.
///
/// Mustache escapes every `{{value}}` for HTML (`<`, `>`, `&`, `"`, `'`), so text from people (a persona's name,
/// its description) can only ever be text; templates use no triple braces. Every page goes out with a strict
/// Content-Security-Policy: no scripts at all, styles and images from this origin only.
public struct HTMLPages: Sendable {
    let library: MustacheLibrary

    /// Loads the templates and fails when one a page needs is missing: swift-mustache answers an empty library for
    /// a missing folder, which would otherwise surface as blank pages in production.
    public static func load(directory: URL, required: [String]) async throws -> HTMLPages {
        let library: MustacheLibrary
        do {
            library = try await MustacheLibrary(directory: directory.path)
        } catch {
            throw ConfigError("cannot read the page templates in \(directory.path): \(error)")
        }
        if let missing = required.first(where: { library.getTemplate(named: $0) == nil }) {
            throw ConfigError("the page template \(missing).mustache is missing from \(directory.path) (set HEARTH_RESOURCES_DIR)")
        }
        return HTMLPages(library: library)
    }

    public static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "strict-origin-when-cross-origin",
    ]

    /// The page `template` filled from `view`, as an HTML response.
    public func response(_ template: String, _ view: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        guard let html = library.render(view, withTemplate: template) else {
            // Checked at startup; only a template removed while running gets here.
            return Response(status: .internalServerError)
        }
        var fields = Self.securityHeaders
        fields[.contentType] = "text/html; charset=utf-8"
        // A page's own fields replace the defaults of the same name (a framed page relaxes `frame-ancestors`).
        for name in Set(headers.map(\.name)) { fields[fields: name] = headers[fields: name] }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
