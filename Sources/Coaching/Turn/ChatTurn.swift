import Accounts
import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import Memory
import PostgresNIO

/// The chat turn (the hot path), as ARCHITECTURE.md lays it out:
/// 1. the user message is committed before any provider call (with its idempotency key);
/// 2. the prompt is assembled from what the turn read just before;
/// 3. the answer streams from the tenant's provider chain into a server-owned ``Generation``;
/// 4. the assistant message and its usage record are written in one transaction; then `done`.
/// Steps 1, 2 and 4 are one round trip each (``TurnStore``).
public struct ChatTurn: Sendable {
    /// What a send or retry led to.
    enum Start: Sendable {
        case generating(Generation)
        /// Already answered earlier (an idempotent replay, or a generation no longer in flight here).
        case stored(threadID: UUID, userMessageID: UUID, assistantMessageID: UUID)
    }

    let database: Database
    let store: TurnStore
    let messages: MessageStore
    let factory: ProviderFactory
    let registry = GenerationRegistry()
    let prompt = PromptAssembler()
    let insights: InsightRecorder
    let logger: Logger

    /// Earlier messages read for the prompt: the short-term tier keeps the last 10 (within its token budget); a
    /// retry reads one more, the question being answered again.
    static let historyLimit = PromptAssembler.Budgets().recentMessages + 1
    static let unavailableAnswer =
        "I'm sorry — I can't answer right now because the coaching service is temporarily unavailable. Please try again in a moment."

    public init(database: Database, keyRing: KeyRing, factory: ProviderFactory) {
        self.database = database
        self.store = TurnStore(client: database.client, keys: UserDataKeys(keyRing: keyRing, logger: database.logger), logger: database.logger)
        self.messages = MessageStore(logger: database.logger)
        self.factory = factory
        self.insights = InsightRecorder(database: database)
        self.logger = database.logger
    }

    func send(tenant: Tenant, identity: Identity, threadID: UUID, content: String, idempotencyKey: String?) async throws -> Start {
        let context = try await context(tenant: tenant, identity: identity, threadID: threadID, before: nil)
        switch try await store.storeExchange(tenantID: tenant.id, userID: identity.userID, threadID: threadID, content: content,
                                             idempotencyKey: idempotencyKey, key: context.key) {
        case .stored(let exchange):
            var recollection = Recall.recollect(message: content, domain: context.domain, memory: context.memory)
            if let insight = recollection.insight,
               try await !insights.record(insight, tenantID: tenant.id, userID: identity.userID, threadID: threadID,
                                          messageID: exchange.assistantMessageID, key: context.key) {
                // Another turn surfaced it first: once is enough.
                recollection = Recall.recollect(message: content, domain: context.domain, memory: context.memory, insights: false)
            }
            return .generating(begin(exchange, context: context, history: try context.conversation(), message: content,
                                     recollection: recollection, tenant: tenant, identity: identity, threadID: threadID))
        case .replay(let exchange):
            if let generation = registry.find(exchange.assistantMessageID) { return .generating(generation) }
            return .stored(threadID: threadID, userMessageID: exchange.userMessageID, assistantMessageID: exchange.assistantMessageID)
        case .noThread:
            throw Conversations.noThread
        case .inProgress:
            throw APIError.conflict("send_in_progress", "This message is still being saved. Try again.")
        }
    }

    /// Regenerates an interrupted or failed answer in place.
    func retry(tenant: Tenant, identity: Identity, threadID: UUID, assistantMessageID: UUID) async throws -> Generation {
        guard registry.find(assistantMessageID) == nil else {
            throw APIError.conflict("generation_in_progress", "This answer is still being generated.")
        }
        let context = try await context(tenant: tenant, identity: identity, threadID: threadID, before: assistantMessageID)
        let replyTo = try await database.withTenant(tenant.id) { connection in
            try await messages.restart(assistantMessageID, threadID: threadID, userID: identity.userID, key: context.key, on: connection)
        }
        guard let replyTo else {
            throw APIError.conflict("not_retryable", "Only an interrupted, failed or abandoned answer can be retried.")
        }
        // The question being answered again is the newest message before the answer.
        var history = try context.conversation()
        let question = history.last?.role == .user ? history.removeLast().content : ""
        // An insight is surfaced once, with the first answer; the regenerated one does without.
        let recollection = Recall.recollect(message: question, domain: context.domain, memory: context.memory, insights: false)
        return begin(.init(userMessageID: replyTo, assistantMessageID: assistantMessageID), context: context, history: history,
                     message: question, recollection: recollection, tenant: tenant, identity: identity, threadID: threadID)
    }

    /// The request a send of `content` would make now, and the memory it would carry; nothing is stored.
    func preview(tenant: Tenant, identity: Identity, threadID: UUID, content: String) async throws -> PromptPreview {
        let context = try await context(tenant: tenant, identity: identity, threadID: threadID, before: nil)
        let recollection = Recall.recollect(message: content, domain: context.domain, memory: context.memory)
        let (request, sections) = request(context, history: try context.conversation(), message: content, recollection: recollection)
        return PromptPreview(
            system: request.system,
            messages: request.messages.map { .init(role: $0.role.rawValue, content: $0.content) },
            sections: sections.map { .init(title: $0.title, items: $0.items) },
            estimatedInputTokens: TokenEstimate.count(request)
        )
    }

    func inFlight(_ assistantMessageID: UUID) -> Generation? {
        registry.find(assistantMessageID)
    }

    private func context(tenant: Tenant, identity: Identity, threadID: UUID, before: UUID?) async throws -> TurnStore.Context {
        guard let context = try await store.context(tenantID: tenant.id, userID: identity.userID, threadID: threadID,
                                                     before: before, historyLimit: Self.historyLimit) else {
            throw Conversations.noThread
        }
        return context
    }

    /// The request for the model (and the remembered sections it carries): the same for a send, a retry and
    /// the preview.
    private func request(_ context: TurnStore.Context, history: [ChatMessage], message: String,
                         recollection: Recollection) -> (CompletionRequest, [PromptSection]) {
        prompt.assemble(instructions: CoachingInstructions.text(for: context.sessionType, domain: context.domain),
                        sections: context.profile.promptSections + recollection.sections, history: history, message: message)
    }

    // MARK: - Generating

    private func begin(_ exchange: MessageStore.Exchange, context: TurnStore.Context, history: [ChatMessage], message: String,
                       recollection: Recollection, tenant: Tenant, identity: Identity, threadID: UUID) -> Generation {
        let generation = Generation(threadID: threadID, userMessageID: exchange.userMessageID, assistantMessageID: exchange.assistantMessageID)
        registry.add(generation)
        let (request, _) = request(context, history: history, message: message, recollection: recollection)
        let chain = factory.chain(for: context.providers)
        // Detached from the request: a client that disconnects must not cancel the answer.
        Task.detached { [self] in
            await run(generation, request: request, recollection: recollection, chain: chain, tenant: tenant, identity: identity, key: context.key)
            registry.remove(exchange.assistantMessageID)
        }
        return generation
    }

    private func run(
        _ generation: Generation, request: CompletionRequest, recollection: Recollection, chain: ProviderChain, tenant: Tenant,
        identity: Identity, key: SymmetricKey
    ) async {
        let started = ContinuousClock.now
        await generation.emit("start", StartEvent(threadId: generation.threadID, userMessageId: generation.userMessageID,
                                                   assistantMessageId: generation.assistantMessageID))
        if !recollection.references.isEmpty {
            await generation.emit("memory", MemoryEvent(items: recollection.references))
        }
        if let insight = recollection.insight {
            await generation.emit("insight", InsightEvent(kind: insight.kind, text: insight.text, factId: insight.factID,
                                                          occurrences: insight.occurrences, domains: insight.domains))
        }
        var text = ""
        var provider = (kind: chain.primary.kind, model: chain.primary.model)
        var reported: (input: Int, output: Int)?
        var firstToken: Duration?
        var failure: ProviderChain.ChainFailure?
        do {
            for try await event in chain.stream(request) {
                switch event {
                case .answering(let kind, let model):
                    provider = (kind, model)
                    firstToken = ContinuousClock.now - started
                case .delta(let delta):
                    text += delta
                    await generation.emit("delta", DeltaEvent(text: delta))
                case .usage(let input, let output):
                    reported = (input, output)
                }
            }
        } catch let error as ProviderChain.ChainFailure {
            failure = error
        } catch {
            failure = .unavailable([])
        }

        let status: MessageStatus
        let outcome: UsageStore.Outcome
        switch failure {
        case nil:
            (status, outcome) = (.complete, .completed)
        case .interrupted?:
            (status, outcome) = (.interrupted, .interrupted)
        case .unavailable?:
            (status, outcome) = (.failed, .unavailable)
            text = Self.unavailableAnswer
            await generation.emit("delta", DeltaEvent(text: text))
        }
        let tokens = reported ?? (outcome == .unavailable ? (0, 0) : (TokenEstimate.count(request), TokenEstimate.count(text)))
        let record = UsageStore.Record(
            tenantID: tenant.id, userID: identity.userID, threadID: generation.threadID, messageID: generation.assistantMessageID,
            provider: provider.kind, model: provider.model, inputTokens: tokens.0, outputTokens: tokens.1,
            estimated: reported == nil, timeToFirstToken: firstToken, total: ContinuousClock.now - started, outcome: outcome
        )
        do {
            let recorded = try await store.finish(record, content: text, status: status, key: key)
            switch failure {
            case nil:
                await generation.emit("done", DoneEvent(assistantMessageId: generation.assistantMessageID, status: status,
                                                        provider: provider.kind, model: provider.model, usage: recorded))
                await generation.finish(.init(content: text, status: status, provider: provider.kind, model: provider.model, usage: recorded, errorCode: nil))
            case .interrupted?:
                await fail(generation, code: "provider_interrupted", message: "The answer was interrupted. Retry to regenerate it.",
                           status: status, content: text, provider: provider, usage: recorded)
            case .unavailable?:
                await fail(generation, code: "providers_unavailable", message: "The coaching service is temporarily unavailable.",
                           status: status, content: text, provider: provider, usage: recorded)
            }
        } catch {
            logger.error("storing an answer failed", metadata: ["message_id": .string(generation.assistantMessageID.uuidString), "error": .string(String(reflecting: error))])
            await fail(generation, code: "internal_error", message: "The answer could not be saved. Retry to regenerate it.",
                       status: .failed, content: text, provider: provider, usage: nil)
        }
    }

    private func fail(_ generation: Generation, code: String, message: String, status: MessageStatus, content: String,
                      provider: (kind: String, model: String), usage: Usage?) async {
        await generation.emit("error", ErrorEvent(code: code, message: message, retryable: true,
                                                  assistantMessageId: generation.assistantMessageID, status: status))
        await generation.finish(.init(content: content, status: status, provider: provider.kind, model: provider.model, usage: usage, errorCode: code))
    }
}

// MARK: - Stream events (the vocabulary is documented in docs/api.md)

struct StartEvent: Encodable {
    let threadId: UUID
    let userMessageId: UUID
    let assistantMessageId: UUID
}

/// The remembered items brought forward for this answer (FR7).
struct MemoryEvent: Encodable {
    let items: [MemoryReference]
}

/// A recurring pattern, for the app to show apart from the answer (FR8, FR9).
struct InsightEvent: Encodable {
    let kind: InsightKind
    let text: String
    let factId: UUID
    let occurrences: Int
    let domains: [String]
}

struct DeltaEvent: Encodable {
    let text: String
}

struct DoneEvent: Encodable {
    let assistantMessageId: UUID
    let status: MessageStatus
    let provider: String
    let model: String
    let usage: Usage
}

struct ErrorEvent: Encodable {
    let code: String
    let message: String
    let retryable: Bool
    let assistantMessageId: UUID
    let status: MessageStatus
}
