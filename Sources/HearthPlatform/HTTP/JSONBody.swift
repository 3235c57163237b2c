import Foundation
import Hummingbird
import NIOCore

/// The body of a JSON API request, checked the same way on every route before a handler reads a field: a body sent
/// as another media type is a 415, bytes that are not UTF-8 are a 400 (a message's content once stored them as
/// replacement characters while a title refused them), and a NUL in any string is a 422 naming the field
/// (PostgreSQL's text cannot hold one: it used to reach the database as a 500).
public enum JSONBody {
    /// The text of `request`'s body, at most `context.maxUploadSize` bytes, checked. The send reads its one field
    /// from it; other routes decode it (``APIRequestDecoder``).
    public static func text(of request: Request, context: some RequestContext) async throws -> String {
        try checkMediaType(request.headers[.contentType])
        return try checked(try await request.body.collect(upTo: context.maxUploadSize))
    }

    /// A missing `Content-Type` is taken as JSON (a body-less POST has none); any other than JSON is refused.
    static func checkMediaType(_ contentType: String?) throws {
        guard let contentType else { return }
        let mediaType = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as JSON: Content-Type: application/json.")
        }
    }

    /// The bytes as text, once they are known to be UTF-8 with no NUL in any string.
    static func checked(_ body: ByteBuffer) throws -> String {
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw APIError.badRequest("invalid_body", "The request body is not valid UTF-8.")
        }
        // Only a body that spells `\u0000` can hold a NUL (a raw one is not JSON): the field is found in a second parse.
        guard text.utf8.firstRange(of: escapedNUL) != nil,
              let document = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
              let field = fieldHoldingNUL(document, path: "") else { return text }
        throw APIError.validation("\(field.isEmpty ? "The body" : field) must not contain a NUL character (\\u0000).")
    }

    static let escapedNUL = Array(#"\u0000"#.utf8)

    /// The path of the first string (or key) holding a NUL, as `profile.goals[0]`; `""` for the document itself.
    static func fieldHoldingNUL(_ value: Any, path: String) -> String? {
        switch value {
        case let text as String:
            return text.unicodeScalars.contains("\u{0}") ? path : nil
        case let object as [String: Any]:
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                let memberPath = path.isEmpty ? key : "\(path).\(key)"
                if key.unicodeScalars.contains("\u{0}") { return path.isEmpty ? "A key" : path }
                if let found = fieldHoldingNUL(member, path: memberPath) { return found }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = fieldHoldingNUL(element, path: "\(path)[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }
}

/// The API's request decoder: `JSONDecoder` over a body ``JSONBody`` has checked.
public struct APIRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try await JSONBody.text(of: request, context: context).utf8))
    }
}
