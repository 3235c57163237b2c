import Foundation
import HearthPlatform
import Hummingbird

/// `/v1/me/memory`: what the coach remembers, for the person to see, correct and delete; and
/// `/v1/threads/{id}/end-session` and `/summarize`, which write a session's summary in the background.
public struct MemoryController<Context: HearthRequestContextProtocol>: Sendable {
    struct NewFact: Decodable {
        let category: String
        let text: String
    }

    struct FactEdit: Decodable {
        let category: String?
        let text: String?
        let active: Bool?
    }

    struct Confirmation: Decodable {
        let token: String
    }

    struct Queued: ResponseEncodable {
        let queued: Bool
    }

    let memory: MemoryService

    public init(memory: MemoryService) {
        self.memory = memory
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("me/memory/facts", use: listFacts)
        group.post("me/memory/facts", use: addFact)
        group.delete("me/memory/facts", use: deleteFacts)
        group.patch("me/memory/facts/:factID", use: editFact)
        group.delete("me/memory/facts/:factID", use: deleteFact)
        group.get("me/memory/summaries", use: listSummaries)
        group.delete("me/memory/summaries/:summaryID", use: deleteSummary)
        group.get("me/memory/insights", use: listInsights)
        group.get("me/memory/export", use: export)
        group.post("me/memory/forget", use: requestForget)
        group.post("me/memory/forget/confirm", use: confirmForget)
        group.delete("me/memory/forget", use: cancelForget)
        group.post("threads/:threadID/end-session", use: endSession)
        group.post("threads/:threadID/summarize", use: summarize)
    }

    @Sendable func listFacts(_ request: Request, context: Context) async throws -> MemoryService.FactList {
        let query = request.uri.queryParameters
        return try await memory.facts(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                      category: try Self.category(query["category"].map(String.init)),
                                      includeInactive: try Self.flag(query["include_inactive"].map(String.init), name: "include_inactive"))
    }

    @Sendable func addFact(_ request: Request, context: Context) async throws -> EditedResponse<StoredFact> {
        let body = try await request.decode(as: NewFact.self, context: context)
        guard let category = try Self.category(body.category) else { throw APIError.validation("category is required.") }
        let fact = try await memory.addFact(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                            category: category, text: try Self.validText(body.text))
        return EditedResponse(status: .created, response: fact)
    }

    @Sendable func editFact(_ request: Request, context: Context) async throws -> StoredFact {
        let body = try await request.decode(as: FactEdit.self, context: context)
        guard body.category != nil || body.text != nil || body.active != nil else {
            throw APIError.validation("Send at least one of category, text and active.")
        }
        return try await memory.editFact(tenant: context.requireTenant(), identity: context.requireIdentity(), id: try Self.id("factID", context),
                                         category: try Self.category(body.category), text: try body.text.map(Self.validText), active: body.active)
    }

    @Sendable func deleteFact(_ request: Request, context: Context) async throws -> Response {
        try await memory.deleteFact(tenant: context.requireTenant(), identity: context.requireIdentity(), id: try Self.id("factID", context))
        return Response(status: .noContent)
    }

    /// Every fact of one category (`?category=`), or every fact.
    @Sendable func deleteFacts(_ request: Request, context: Context) async throws -> MemoryService.Deleted {
        try await memory.deleteFacts(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                     category: try Self.category(request.uri.queryParameters["category"].map(String.init)))
    }

    @Sendable func listSummaries(_ request: Request, context: Context) async throws -> MemoryService.SummaryList {
        try await memory.summaries(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                   includeArchived: try Self.flag(request.uri.queryParameters["include_archived"].map(String.init), name: "include_archived"))
    }

    @Sendable func deleteSummary(_ request: Request, context: Context) async throws -> Response {
        try await memory.deleteSummary(tenant: context.requireTenant(), identity: context.requireIdentity(), id: try Self.id("summaryID", context))
        return Response(status: .noContent)
    }

    @Sendable func listInsights(_ request: Request, context: Context) async throws -> MemoryService.InsightList {
        try await memory.insights(tenant: context.requireTenant(), identity: context.requireIdentity())
    }

    @Sendable func export(_ request: Request, context: Context) async throws -> MemoryService.Export {
        try await memory.exportAll(tenant: context.requireTenant(), identity: context.requireIdentity())
    }

    @Sendable func requestForget(_ request: Request, context: Context) async throws -> EditedResponse<MemoryService.ForgetRequested> {
        EditedResponse(status: .accepted, response: try await memory.requestForget(tenant: context.requireTenant(), identity: context.requireIdentity()))
    }

    @Sendable func confirmForget(_ request: Request, context: Context) async throws -> MemoryService.Forgotten {
        let body = try await request.decode(as: Confirmation.self, context: context)
        return try await memory.confirmForget(tenant: context.requireTenant(), identity: context.requireIdentity(), token: body.token)
    }

    @Sendable func cancelForget(_ request: Request, context: Context) async throws -> Response {
        try await memory.cancelForget(tenant: context.requireTenant(), identity: context.requireIdentity())
        return Response(status: .noContent)
    }

    @Sendable func endSession(_ request: Request, context: Context) async throws -> EditedResponse<Queued> {
        try await memory.summarize(tenant: context.requireTenant(), identity: context.requireIdentity(), threadID: try Self.id("threadID", context), reason: .ended)
        return EditedResponse(status: .accepted, response: Queued(queued: true))
    }

    @Sendable func summarize(_ request: Request, context: Context) async throws -> EditedResponse<Queued> {
        try await memory.summarize(tenant: context.requireTenant(), identity: context.requireIdentity(), threadID: try Self.id("threadID", context), reason: .requested)
        return EditedResponse(status: .accepted, response: Queued(queued: true))
    }

    // MARK: - Input

    static func id(_ name: String, _ context: Context) throws -> UUID {
        guard let id = context.parameters.get(name, as: UUID.self) else { throw APIError.notFound() }
        return id
    }

    static func category(_ value: String?) throws -> FactCategory? {
        guard let value else { return nil }
        guard let category = FactCategory(rawValue: value) else {
            throw APIError.validation("category must be one of \(FactCategory.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return category
    }

    static func flag(_ value: String?, name: String) throws -> Bool {
        switch value {
        case nil, "false": return false
        case "true": return true
        default: throw APIError.validation("\(name) must be true or false.")
        }
    }

    static func validText(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...300).contains(trimmed.count) else { throw APIError.validation("text must be 1 to 300 characters.") }
        return trimmed
    }
}

extension StoredFact: ResponseEncodable {}
