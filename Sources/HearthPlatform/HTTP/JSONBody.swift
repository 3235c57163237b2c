import Foundation
import Hummingbird
import NIOCore

/// The body of a JSON API request, checked the same way on every route before a handler reads a field: a body sent
/// as another media type is a 415, bytes that are not UTF-8 are a 400 (a message's content once stored them as
/// replacement characters while a title refused them), and a NUL in any string is a 422 naming the field
/// (PostgreSQL's text cannot hold one: it used to reach the database as a 500).
public enum JSONBody {
    /// Collects the body of `request`, at most `context.maxUploadSize` bytes, and checks it.
    public static func collect(_ request: Request, context: some RequestContext) async throws -> ByteBuffer {
        try checkMediaType(request.headers[.contentType])
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        try check(body)
        return body
    }

    /// A missing `Content-Type` is taken as JSON (a body-less POST has none); any other than JSON is refused.
    public static func checkMediaType(_ contentType: String?) throws {
        guard let contentType else { return }
        let mediaType = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) else {
            throw unsupportedMediaType
        }
    }

    public static let unsupportedMediaType = APIError(.unsupportedMediaType, code: "unsupported_media_type",
                                                      message: "Send the body as JSON: Content-Type: application/json.")

    /// The bytes are UTF-8 and no string in them holds a NUL.
    public static func check(_ body: ByteBuffer) throws {
        let bytes = body.readableBytesView
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw APIError.badRequest("invalid_body", "The request body is not valid UTF-8.")
        }
        // Only a body that spells `\u0000` can hold a NUL (a raw one is not JSON): the field is found in a second parse.
        guard bytes.firstRange(of: escapedNUL) != nil,
              let document = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
              let field = fieldHoldingNUL(document, path: "") else { return }
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
        let body = try await JSONBody.collect(request, context: context)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: body)
    }
}
