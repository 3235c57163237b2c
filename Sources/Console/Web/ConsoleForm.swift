import Foundation
import HearthPlatform
import Hummingbird

/// A console form's fields (`application/x-www-form-urlencoded`).
enum ConsoleForm {
    struct Empty: Decodable {}

    private struct Token: Decodable {
        let csrf: String?
    }

    /// The fields of a form whose token the caller checks itself (the sign-in form's double submit).
    static func decode<Form: Decodable>(_ type: Form.Type, from request: Request) async throws -> Form {
        try parse(Form.self, try await text(of: request))
    }

    /// The fields of a signed-in operator's form, refused with 403 unless its CSRF token is the session's.
    static func decode<Form: Decodable>(_ type: Form.Type, from request: Request, context: some HearthRequestContextProtocol,
                                        checkingCSRFWith security: ConsoleSecurity) async throws -> Form {
        let text = try await text(of: request)
        let token = try? URLEncodedFormDecoder().decode(Token.self, from: text)
        guard security.isValid(csrf: token?.csrf, for: try context.requireOperatorSession()) else {
            throw APIError(.forbidden, code: "csrf_failed",
                           message: "This form has expired or did not come from the console. Reload the page and try again.")
        }
        return try parse(Form.self, text)
    }

    private static func text(of request: Request) async throws -> String {
        String(buffer: try await request.body.collect(upTo: 256 * 1024))
    }

    private static func parse<Form: Decodable>(_ type: Form.Type, _ text: String) throws -> Form {
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: text)
        } catch {
            throw APIError.badRequest("invalid_form", "The form was incomplete or malformed. Please fill it in again.")
        }
    }
}
