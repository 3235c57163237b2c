import Foundation
import HearthPlatform
import Hummingbird
import Safety

/// `GET /v1/safety`: the coaching disclaimer and crisis resources for apps to show at onboarding, in their
/// terms and beside the chat (FR17, FR19). Needs only the client key: it is shown before anyone signs in.
public struct SafetyController<Context: HearthRequestContextProtocol>: Sendable {
    let settings: SafetySettings

    public init(settings: SafetySettings) {
        self.settings = settings
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("safety", use: show)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> EditedResponse<SafetySettings.View> {
        let locale: String?
        if let asked = request.uri.queryParameters.get("locale") {
            guard let normalised = CrisisResources.normalise(asked) else {
                throw APIError.validation("locale must be a language tag such as en-GB.")
            }
            locale = normalised
        } else {
            locale = CrisisResources.preferredLocale(acceptLanguage: request.headers[.acceptLanguage])
        }
        let view = try await settings.view(tenantID: context.requireTenant().id, locale: locale)
        // Safety text changes rarely, but a tenant's edit should reach apps within minutes.
        return EditedResponse(headers: [.cacheControl: "public, max-age=300", .vary: "Accept-Language"], response: view)
    }
}
extension SafetySettings.View: ResponseEncodable {}
