import Foundation
import HearthPlatform
import HTTPTypes
import Hummingbird
import NIOCore
import Safety

/// `/v1/threads/{threadID}/messages`: history, sending a message (the streamed turn), resuming a stream,
/// and retrying an interrupted answer.
///
/// A send or retry answers `text/event-stream` when the client accepts it, otherwise JSON once the answer is
/// complete. Event vocabulary: docs/api.md.
public struct MessagesController<Context: HearthRequestContextProtocol>: Sendable {
    /// The JSON answer to a send or retry.
    struct TurnResponse: ResponseEncodable {
        struct Failure: Encodable { let code: String; let retryable: Bool }
        let userMessageId: UUID
        let assistantMessage: MessageView
        let usage: Usage?
        let error: Failure?
        /// Present when the message showed a crisis: show these resources with the answer.
        var crisis: CrisisEvent? = nil
    }

    let conversations: Conversations
    let turn: ChatTurn

    static var maxContentLength: Int { 8000 }

    public init(conversations: Conversations, turn: ChatTurn) {
        self.conversations = conversations
        self.turn = turn
    }

    /// `checkingInRead`: the group of the send and the history page, behind the access-token middleware that leaves
    /// the session to their first round trip (decisions 0015 and 0016); `group`: the other routes, behind the
    /// access-token middleware.
    public func addRoutes(to group: RouterGroup<Context>, checkingInRead: RouterGroup<Context>) {
        checkingInRead.get("threads/:threadID/messages", use: list)
        checkingInRead.post("threads/:threadID/messages", use: send)
        group.get("threads/:threadID/messages/:messageID", use: show)
        group.get("threads/:threadID/messages/:messageID/events", use: events)
        group.post("threads/:threadID/messages/:messageID/retry", use: retry)
        group.post("threads/:threadID/prompt-preview", use: previewPrompt)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = request.uri.queryParameters
        let page = try PageParameters(query)
        let order: MessageStore.Order
        switch query.get("order") {
        case nil, "newest": order = .newest
        case "oldest": order = .oldest
        default: throw APIError.validation("order must be newest or oldest.")
        }
        // The session is checked, and the request counted, in the page's one statement (decision 0016).
        let (messages, limit) = try await conversations.messages(tenant: context.requireTenant(), identity: context.requireUncheckedIdentity(),
                                                                 threadID: ThreadsController<Context>.threadID(context), order: order,
                                                                 limit: page.limit, cursor: page.cursor)
        return try messages.response(from: request, context: context).withRateLimitFields(limit)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> MessageView {
        try await conversations.message(tenant: context.requireTenant(), identity: context.requireIdentity(),
                                        threadID: ThreadsController<Context>.threadID(context), id: Self.messageID(context)).0
    }

    @Sendable func send(_ request: Request, context: Context) async throws -> Response {
        let tenant = try context.requireTenant()
        // Checked by the turn before it reads or stores anything; until then only the body is read.
        let identity = try context.requireUncheckedIdentity()
        let threadID = try ThreadsController<Context>.threadID(context)
        let idempotencyKey = try Self.idempotencyKey(request)
        let content = try await Self.content(of: request, context: context)
        let (start, limit) = try await turn.send(tenant: tenant, identity: identity, threadID: threadID, content: content,
                                                 idempotencyKey: idempotencyKey, locale: Self.locale(request))
        return try await respond(start, request: request, context: context, tenant: tenant, identity: identity).withRateLimitFields(limit)
    }

    /// The debug view: the request a turn with this message would send, built exactly as a send builds it.
    /// Nothing is stored or sent to a model; the tenant must allow it.
    @Sendable func previewPrompt(_ request: Request, context: Context) async throws -> PromptPreview {
        let tenant = try context.requireTenant()
        guard tenant.promptDebug else {
            throw APIError(.forbidden, code: "prompt_debug_disabled", message: "This app does not let users inspect their prompts.")
        }
        return try await turn.preview(tenant: tenant, identity: context.requireIdentity(), threadID: ThreadsController<Context>.threadID(context),
                                      content: Self.content(of: request, context: context), locale: Self.locale(request))
    }

    /// The send's `{"content": "…"}`, trimmed. Read with `JSONFields`, not `JSONDecoder`: it is every turn's body.
    static func content(of request: Request, context: Context) async throws -> String {
        let body = try await JSONBody.text(of: request, context: context)
        guard let fields = try? JSONFields.read(body, [[.key("content")]]) else {
            throw APIError.badRequest("invalid_body", "The request body is not valid JSON.")
        }
        guard let value = fields[0] else { throw APIError.badRequest("invalid_body", "content is missing.") }
        guard let text = value.string else { throw APIError.badRequest("invalid_body", "content must be a string.") }
        let content = Self.trimmed(text)
        guard !content.isEmpty else { throw APIError.validation("The message is empty.") }
        guard content.count <= Self.maxContentLength else {
            throw APIError.validation("Messages can be at most \(Self.maxContentLength) characters.")
        }
        return content
    }

    /// Without leading and trailing white space: `trimmingCharacters(in: .whitespacesAndNewlines)`, whose set is
    /// Unicode's White_Space property and the zero-width space, read from the scalars.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace || scalar == "\u{200B}" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        if first == scalars.startIndex, last == scalars.index(before: scalars.endIndex) { return text }
        return String(scalars[first...last])
    }

    @Sendable func retry(_ request: Request, context: Context) async throws -> Response {
        let tenant = try context.requireTenant()
        let identity = try context.requireIdentity()
        let generation = try await turn.retry(tenant: tenant, identity: identity, threadID: ThreadsController<Context>.threadID(context),
                                              assistantMessageID: Self.messageID(context), locale: Self.locale(request))
        return try await respond(.generating(generation), request: request, context: context, tenant: tenant, identity: identity)
    }

    /// Reconnecting to an answer: resumes a generation in flight on this instance after `Last-Event-ID`,
    /// otherwise replays the stored message.
    @Sendable func events(_ request: Request, context: Context) async throws -> Response {
        let tenant = try context.requireTenant()
        let identity = try context.requireIdentity()
        let threadID = try ThreadsController<Context>.threadID(context)
        let messageID = try Self.messageID(context)
        // Ownership first: the message must be this user's, in this thread.
        var (message, usage) = try await conversations.message(tenant: tenant, identity: identity, threadID: threadID, id: messageID)
        guard message.role == "assistant" else { throw APIError.notFound("No such answer.") }
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap(Int.init) ?? 0
        if let generation = turn.inFlight(messageID) {
            return Self.stream(await generation.subscribe(after: lastEventID))
        }
        if message.status == .streaming {
            // Read while streaming, but no longer in flight here: the answer may have been stored in between (a
            // generation leaves the registry only after its answer is committed). Still streaming, it is another
            // server's: being generated there while that server renews it (409, until it would lapse), or lost with
            // it, and then interrupted now and served as stored (migration 0042).
            if let secondsLeft = try await turn.interruptIfAbandoned(messageID, tenantID: tenant.id) {
                throw APIError.conflict("generation_in_progress", "This answer is still being generated by another server. Try again shortly.",
                                        retryAfter: secondsLeft)
            }
            (message, usage) = try await conversations.message(tenant: tenant, identity: identity, threadID: threadID, id: messageID)
        }
        return try await respond(stored: message, usage: usage, userMessageID: message.replyTo ?? messageID, threadID: threadID,
                                 wantsStream: true, request: request, context: context, tenant: tenant)
    }

    // MARK: - Answering

    private func respond(_ start: ChatTurn.Start, request: Request, context: Context, tenant: Tenant, identity: Identity) async throws -> Response {
        let wantsStream = request.headers[.accept]?.contains("text/event-stream") ?? false
        switch start {
        case .generating(let generation):
            if wantsStream { return Self.stream(await generation.subscribe()) }
            let outcome = await generation.result()
            let message = MessageView(id: generation.assistantMessageID, role: "assistant", content: outcome.content, status: outcome.status,
                                      replyTo: generation.userMessageID, provider: outcome.provider, model: outcome.model, createdAt: Date(),
                                      crisisKind: outcome.crisis?.kind)
            return try TurnResponse(userMessageId: generation.userMessageID, assistantMessage: message, usage: outcome.usage,
                                    error: outcome.errorCode.map { .init(code: $0, retryable: true) }, crisis: outcome.crisis)
                .response(from: request, context: context)
        case .stored(let threadID, let userMessageID, let assistantMessageID):
            let (message, usage) = try await conversations.message(tenant: tenant, identity: identity, threadID: threadID, id: assistantMessageID)
            return try await respond(stored: message, usage: usage, userMessageID: userMessageID, threadID: threadID,
                                     wantsStream: wantsStream, request: request, context: context, tenant: tenant)
        }
    }

    /// Answers with an answer already stored: as the same events a live one sends (its `crisis` announcement
    /// included), or as JSON.
    private func respond(stored message: MessageView, usage: Usage?, userMessageID: UUID, threadID: UUID, wantsStream: Bool,
                         request: Request, context: Context, tenant: Tenant) async throws -> Response {
        guard message.status != .streaming else {
            throw APIError.conflict("generation_in_progress", "This answer is still being generated by another server. Try again shortly.")
        }
        let crisis = try await turn.crisisEvent(for: message, tenantID: tenant.id, locale: Self.locale(request))
        let failure: TurnResponse.Failure? = switch message.status {
        case .interrupted: .init(code: "provider_interrupted", retryable: true)
        case .failed: .init(code: "providers_unavailable", retryable: true)
        default: nil
        }
        if wantsStream {
            return Self.stream(Self.replay(message, userMessageID: userMessageID, threadID: threadID, crisis: crisis, usage: usage, failure: failure))
        }
        return try TurnResponse(userMessageId: userMessageID, assistantMessage: message, usage: usage, error: failure, crisis: crisis)
            .response(from: request, context: context)
    }

    /// A stored answer as the same event vocabulary a live one uses.
    static func replay(_ message: MessageView, userMessageID: UUID, threadID: UUID, crisis: CrisisEvent?, usage: Usage?,
                       failure: TurnResponse.Failure?) -> AsyncStream<ServerSentEvent> {
        let replaying = Generation(threadID: threadID, userMessageID: userMessageID, assistantMessageID: message.id)
        return AsyncStream { continuation in
            Task {
                await replaying.emit("start", StartEvent(threadId: threadID, userMessageId: userMessageID, assistantMessageId: message.id))
                if let crisis { await replaying.emit("crisis", crisis) }
                if !message.content.isEmpty { await replaying.emit("delta", DeltaEvent(text: message.content)) }
                if let failure {
                    await replaying.emit("error", ErrorEvent(code: failure.code, message: "This answer did not complete. Retry to regenerate it.",
                                                             retryable: failure.retryable, assistantMessageId: message.id, status: message.status))
                } else {
                    await replaying.emit("done", DoneEvent(assistantMessageId: message.id, status: message.status, provider: message.provider ?? "",
                                                           model: message.model ?? "", usage: usage ?? Usage(inputTokens: 0, outputTokens: 0, estimated: true, costMicros: 0)))
                }
                await replaying.finish(.init(content: message.content, status: message.status, provider: message.provider, model: message.model, usage: usage,
                                             errorCode: failure?.code, crisis: crisis))
                for await event in await replaying.subscribe() { continuation.yield(event) }
                continuation.finish()
            }
        }
    }

    static func stream(_ events: AsyncStream<ServerSentEvent>) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                var buffer = ByteBuffer()
                for await event in events {
                    buffer.clear()
                    event.write(into: &buffer)
                    // A client that has gone away makes this throw; the generation carries on regardless.
                    try await writer.write(buffer)
                }
                try await writer.finish(nil)
            }
        )
    }

    /// The person's language, for the crisis resources.
    static func locale(_ request: Request) -> String? {
        CrisisResources.preferredLocale(acceptLanguage: request.headers[.acceptLanguage])
    }

    static func messageID(_ context: Context) throws -> UUID {
        guard let id = context.parameters.get("messageID", as: UUID.self) else { throw APIError.notFound("No such message.") }
        return id
    }

    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...128).contains(key.count), key.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 }) else {
            throw APIError.badRequest("invalid_idempotency_key", "Idempotency-Key must be 1–128 visible ASCII characters.")
        }
        return key
    }
}
