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

    /// Who may frame a page and what it may frame. Pages forbid both, except the console's persona page, which
    /// frames that persona's landing page preview, itself framed by the console alone.
    public enum Framing: Sendable {
        case forbidden
        /// The page frames pages of this origin.
        case framesSelf
        /// Pages of this origin may frame this one.
        case framedBySelf
    }

    static func contentSecurityPolicy(_ framing: Framing) -> String {
        let policy = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'"
        return switch framing {
        case .forbidden: policy + "; frame-ancestors 'none'"
        case .framesSelf: policy + "; frame-src 'self'; frame-ancestors 'none'"
        case .framedBySelf: policy + "; frame-ancestors 'self'"
        }
    }

    /// The page `template` filled from `view`, as an HTML response.
    public func response(_ template: String, _ view: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
                         framing: Framing = .forbidden) -> Response {
        guard let html = library.render(view, withTemplate: template) else {
            // Checked at startup; only a template removed while running gets here.
            return Response(status: .internalServerError)
        }
        var fields: HTTPFields = [
            .contentSecurityPolicy: Self.contentSecurityPolicy(framing),
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "strict-origin-when-cross-origin",
            .contentType: "text/html; charset=utf-8",
        ]
        fields.append(contentsOf: headers)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
