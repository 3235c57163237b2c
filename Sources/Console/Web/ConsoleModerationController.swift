import Foundation
import HearthPlatform
import Hummingbird
import Personas

/// `/console/tenants/{tenant}/personas`: persona moderation (FR46). The queue with the automatic screening's
/// reasons, a persona's fields with the flagged ones highlighted beside its landing page as it would go live,
/// approve / reject with a reason / suspend / reinstate, and its history. Every role reads; moderators and admins
/// decide, each decision recorded in the persona's history and the audit log.
public struct ConsoleModerationController<Context: HearthRequestContextProtocol>: Sendable {
    struct QueuePage {
        struct Row {
            let id: String
            let name: String
            let creatorName: String
            let domain: String
            let revision: Int
            let submittedAt: String
            let flagged: Bool
            let reasons: [String]
        }

        let chrome: Chrome
        let personas: [Row]
    }

    struct PersonaPage {
        struct Field {
            let name: String
            let text: String
            /// The screening's reasons about this field.
            let reasons: [String]
        }

        struct HistoryRow {
            let at: String
            let revision: Int
            let action: String
            let who: String
            let note: String?
        }

        let chrome: Chrome
        let id: String
        let name: String
        let status: String
        let revision: Int
        let isLive: Bool
        let verdict: String?
        let reasons: [String]
        let fields: [Field]
        let reviewNote: String?
        let canDecide: Bool
        let inQueue: Bool
        let suspended: Bool
        let history: [HistoryRow]
    }

    struct Decision: Decodable {
        let revision: Int?
        let reason: String?
    }

    let moderation: PersonaModeration
    let landing: LandingPages
    let pages: ConsolePages

    public init(moderation: PersonaModeration, landing: LandingPages, pages: ConsolePages) {
        self.moderation = moderation
        self.landing = landing
        self.pages = pages
    }

    public func addRoutes(to tenant: RouterGroup<Context>) {
        tenant.get("personas", use: queue)
        tenant.get("personas/:personaID", use: show)
        tenant.get("personas/:personaID/preview", use: preview)
        tenant.post("personas/:personaID/:decision", use: decide)
    }

    @Sendable func queue(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let personas = try await moderation.queue(tenantID: context.requireTenant().id)
        return pages.render("console/personas", QueuePage(chrome: pages.chrome(context, title: "Persona moderation"), personas: personas.map {
            .init(id: $0.id.uuidString.lowercased(), name: $0.draft.name, creatorName: $0.draft.creatorName, domain: $0.draft.domain,
                  revision: $0.revision, submittedAt: ConsoleFormat.timestamp($0.updatedAt), flagged: $0.screening?.verdict == .flag,
                  reasons: $0.screening?.reasons.map(\.description) ?? [])
        }))
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        let notice = request.uri.queryParameters.get("done").flatMap { done in
            ["approved", "rejected", "suspended", "reinstated"].contains(done) ? "The persona is \(done)." : nil
        }
        return try await page(context, notice: notice, problem: nil, status: .ok)
    }

    /// The landing page the working copy would get, framed by the persona's page (and only by the console).
    @Sendable func preview(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireOperator(.view)
        guard let page = try await landing.draftPreview(tenantID: context.requireTenant().id, personaID: Self.personaID(context),
                                                        acceptLanguage: request.headers[.acceptLanguage]) else {
            throw APIError.notFound("No such persona.")
        }
        return pages.render("landing/persona", page, framing: .framedBySelf)
    }

    @Sendable func decide(_ request: Request, context: Context) async throws -> Response {
        let author = try context.requireOperator(.moderate)
        let form = try await ConsoleForm.decode(Decision.self, from: request, context: context, checkingCSRFWith: pages.security)
        let tenant = try context.requireTenant()
        let id = try Self.personaID(context)
        let done: String
        do {
            switch context.parameters.get("decision") {
            case "approve":
                _ = try await moderation.approve(tenantID: tenant.id, id: id, revision: try Self.revision(form), by: author)
                done = "approved"
            case "reject":
                _ = try await moderation.reject(tenantID: tenant.id, id: id, revision: try Self.revision(form), note: form.reason ?? "", by: author)
                done = "rejected"
            case "suspend":
                _ = try await moderation.suspend(tenantID: tenant.id, id: id, note: form.reason ?? "", by: author)
                done = "suspended"
            case "reinstate":
                _ = try await moderation.reinstate(tenantID: tenant.id, id: id, by: author)
                done = "reinstated"
            default:
                throw APIError.notFound()
            }
        } catch let error as APIError where error.status == .unprocessableContent || error.status == .conflict {
            return try await page(context, notice: nil, problem: error.message, status: error.status)
        }
        return .redirect(to: "/console/tenants/\(tenant.slug)/personas/\(id.uuidString.lowercased())?done=\(done)")
    }

    private func page(_ context: Context, notice: String?, problem: String?, status: HTTPResponse.Status) async throws -> Response {
        let account = try context.requireOperator(.view)
        let tenant = try context.requireTenant()
        let (persona, history) = try await moderation.persona(tenantID: tenant.id, id: Self.personaID(context))
        let reasons = persona.screening?.reasons ?? []
        let view = PersonaPage(
            chrome: pages.chrome(context, title: "Persona: \(persona.draft.name)", notice: notice, problem: problem),
            id: persona.id.uuidString.lowercased(), name: persona.draft.name, status: persona.status.rawValue, revision: persona.revision,
            isLive: persona.isLive, verdict: persona.screening?.verdict.rawValue, reasons: reasons.map(\.description),
            fields: persona.draft.fields.map { field in
                .init(name: field.name, text: field.text, reasons: reasons.filter { $0.field == field.name }.map(\.description))
            },
            reviewNote: persona.reviewNote, canDecide: account.may(.moderate, in: tenant.id), inQueue: persona.status == .submitted,
            suspended: persona.status == .suspended,
            history: history.reversed().map {
                .init(at: ConsoleFormat.timestamp($0.at), revision: $0.revision, action: $0.action.rawValue,
                      who: $0.operatorEmail ?? $0.actor.rawValue, note: $0.note)
            }
        )
        return pages.render("console/persona", view, status: status, framing: .framesSelf)
    }

    static func personaID(_ context: Context) throws -> UUID {
        guard let id = context.parameters.get("personaID", as: UUID.self) else { throw APIError.notFound("No such persona.") }
        return id
    }

    static func revision(_ form: Decision) throws -> Int {
        guard let revision = form.revision else { throw APIError.validation("The form lost the revision you read: reload the page.") }
        return revision
    }
}
