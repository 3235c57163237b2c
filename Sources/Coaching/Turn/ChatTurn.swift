import Accounts
import CoachingDomains
import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import Memory
import PostgresNIO
import Safety

/// The chat turn (the hot path), as ARCHITECTURE.md lays it out:
/// 1. the message is checked for a crisis, in process; then one statement checks the session and the limits,
///    admits the person and commits the message before any provider call (with its idempotency key and any crisis
///    it showed; decision 0018), while another, at the same time, reads the context (decision 0023);
/// 2. the message is routed to a coaching domain as soon as the context is read, and the prompt assembled from it
///    (crisis support first when the thread is in it);
/// 3. the answer streams from the tenant's provider chain into a server-owned ``Generation``;
/// 4. the answer is reviewed sentence by sentence as it streams (``ResponseReview``); the assistant message, the
///    exchange's domain and its usage record are written in one transaction; then `done`.
/// Steps 1 and 4 are one round trip each (``TurnStore``).
public struct ChatTurn: Sendable {
    /// What a send or retry led to.
    enum Start: Sendable {
        case generating(Generation)
        /// Already answered earlier (an idempotent replay, or a generation no longer in flight here).
        case stored(threadID: UUID, userMessageID: UUID, assistantMessageID: UUID)
    }

    let database: Database
    let store: TurnStore
    let dataKeys: RecentDataKeys
    let messages: MessageStore
    let factory: ProviderFactory
    let registry = GenerationRegistry()
    let prompt = PromptAssembler()
    let insights: InsightRecorder
    let domains: CoachingDomains
    let safety = TurnSafety()
    let safetySettings: SafetySettings
    /// Keeps the answers streaming here alive in the database, with their text so far: a service of the application.
    public let checkpoints: AnswerCheckpoints
    let logger: Logger

    /// Earlier messages read for the prompt: the short-term tier keeps the last 10 (within its token budget); a
    /// retry reads one more, the question being answered again.
    static let historyLimit = PromptAssembler.Budgets().recentMessages + 1
    static let unavailableAnswer =
        "I'm sorry — I can't answer right now because the coaching service is temporarily unavailable. Please try again in a moment."

    public init(database: Database, keyRing: KeyRing, factory: ProviderFactory, domains: CoachingDomains, leases: AnswerLeases = .init()) {
        self.database = database
        let keys = UserDataKeys(keyRing: keyRing, logger: database.logger)
        self.store = TurnStore(client: database.client, keys: keys, logger: database.logger)
        self.dataKeys = RecentDataKeys(keys: keys, client: database.client)
        self.messages = MessageStore(logger: database.logger)
        self.factory = factory
        self.insights = InsightRecorder(database: database)
        self.domains = domains
        self.safetySettings = SafetySettings(database: database)
        self.checkpoints = AnswerCheckpoints(leases: leases, database: database)
        self.logger = database.logger
    }

    /// `locale`: the person's language (`Accept-Language`), for the crisis resources. `identity`'s session is
    /// checked in the send's one statement (decisions 0015 and 0018); the request's rate limit comes back for the
    /// answer's `RateLimit` fields.
    func send(tenant: Tenant, identity: Identity, threadID: UUID, content: String, idempotencyKey: String?,
              locale: String?) async throws -> (start: Start, limit: RateLimit?) {
        // The crisis check runs before the statement that stores the message with its finding; the router, which
        // needs the thread, runs after.
        let questionID = RandomBytes.timeOrderedUUID()
        var crisis = safety.detector.assess(content)
        // A session that is not live is refused by the statement; without a key there is no account to have one.
        guard let key = try await dataKeys.key(tenantID: tenant.id, userID: identity.userID) else { throw APIError.sessionRevoked }
        // A message flagged by words that hang on the conversation (rare: no cue, and too short to say what it is
        // about, or an "it" it does not name) is read again after it, so its context is read first. Every other send
        // reads its context beside the statement (below).
        var early: TurnStore.Context?? = nil
        if crisis.readsConversation {
            let context = try await store.sendContext(question: questionID, tenantID: tenant.id, userID: identity.userID, threadID: threadID,
                                                      historyLimit: Self.historyLimit, key: key)
            early = .some(context)
            let conversation = try context.map { TurnSafety.conversation(history: try $0.conversation(), memory: $0.memory) } ?? []
            crisis = safety.detector.reassess(content, alone: crisis, conversation: conversation)
        }
        let question = TurnStore.Send(question: questionID, content: content, idempotencyKey: idempotencyKey,
                                      answer: RandomBytes.timeOrderedUUID(), crisis: crisis, locales: CrisisResources.candidates(for: locale))
        // The context is read on a connection of its own while the statement below commits the question, and the
        // history is opened and the message routed meanwhile (decision 0023): the provider waits for the longer of
        // the two, not for both. A send the statement refuses leaves this unused (cancelled with the scope).
        async let prepared = prepare(question, read: early, tenantID: tenant.id, userID: identity.userID, threadID: threadID, key: key)
        let (begun, limit) = try await store.begin(question, tenantID: tenant.id, userID: identity.userID, threadID: threadID,
                                                   session: identity.sessionID, key: key)
        switch begun {
        case .stored(let exchange, let admission, let resources):
            do {
                // The thread went between the read and the write: the placeholder is swept as abandoned.
                guard var (context, history, classification) = try await prepared else { throw Conversations.noThread }
                context.admission = admission
                let plan = Plan(classification: classification, stored: resources, locale: locale)
                var recollection = recollect(content, plan: plan, context: context, insights: true)
                if let insight = recollection.insight,
                   try await !insights.record(insight, tenantID: tenant.id, userID: identity.userID, threadID: threadID,
                                              messageID: exchange.assistantMessageID, key: context.key) {
                    // Another turn surfaced it first: once is enough.
                    recollection = recollect(content, plan: plan, context: context, insights: false)
                }
                return (.generating(begin(exchange, context: context, history: history, message: content, plan: plan,
                                          recollection: recollection, route: classification.route.domain, tenant: tenant,
                                          identity: identity, threadID: threadID)), limit)
            } catch {
                await store.releaseLease(exchange.assistantMessageID, tenantID: tenant.id)
                throw error
            }
        case .replay(let exchange):
            try await requireSameQuestion(exchange.userMessageID, content: content, tenantID: tenant.id, userID: identity.userID,
                                          threadID: threadID, key: key)
            if let generation = registry.find(exchange.assistantMessageID) { return (.generating(generation), limit) }
            return (.stored(threadID: threadID, userMessageID: exchange.userMessageID, assistantMessageID: exchange.assistantMessageID), limit)
        case .noThread:
            throw Conversations.noThread
        case .inProgress:
            throw APIError.conflict("send_in_progress", "This message is still being saved. Try again.")
        }
    }

    /// A replay must carry the words the key was first sent with. The same key with other words is the app's
    /// mistake (a key reused for a new message), and answering it with the first exchange would drop that message
    /// unseen: 422, as the IETF Idempotency-Key draft has it. Only replays pay for this read.
    private func requireSameQuestion(_ questionID: UUID, content: String, tenantID: UUID, userID: UUID, threadID: UUID,
                                     key: SymmetricKey) async throws {
        let stored = try await database.withTenant(tenantID) { [self] connection in
            try await messages.message(questionID, threadID: threadID, userID: userID, key: key, on: connection)
        }
        guard let stored else { throw Conversations.noThread }
        guard stored.content == content else {
            throw APIError(.unprocessableContent, code: "idempotency_key_reused",
                           message: "This Idempotency-Key was sent with another message. Send a new message with a new key.")
        }
    }

    /// Regenerates an interrupted or failed answer in place.
    func retry(tenant: Tenant, identity: Identity, threadID: UUID, assistantMessageID: UUID, locale: String?) async throws -> Generation {
        guard registry.find(assistantMessageID) == nil else {
            throw APIError.conflict("generation_in_progress", "This answer is still being generated.")
        }
        // The answer being regenerated is the lease, as for a send.
        let context = try await context(tenant: tenant, identity: identity, threadID: threadID, before: assistantMessageID,
                                        lease: assistantMessageID)
        // A lease of that id already held is the live server's that generates the answer: not this retry's to release.
        var leaseTaken = true
        do {
            let restarted = try await database.withTenant(tenant.id) { [self] connection in
                try await messages.restart(assistantMessageID, threadID: threadID, userID: identity.userID, key: context.key,
                                           leases: checkpoints.leases, on: connection)
            }
            guard case .restarted(let replyTo?, let crisis) = restarted else {
                guard case .notRetryable(let retryAfter) = restarted else { throw APIError.notFound("No such message.") }
                // With `retryAfter` when a live server is generating it: retryable then if that server is gone.
                leaseTaken = retryAfter == nil
                throw APIError.conflict("not_retryable", "Only an interrupted, failed or abandoned answer can be retried.", retryAfter: retryAfter)
            }
            // The question being answered again is the newest message before the answer.
            var history = try context.conversation()
            let question = history.last?.role == .user ? history.removeLast().content : ""
            // The question is routed again (in process, nothing is stored twice). Its crisis is the one recorded with
            // the first answer — announced again with this one — not what today's model makes of it. An insight is
            // surfaced once, with the first answer.
            let routed = try await classify(question, crisis: safety.detector.assess(question), context: context, history: history,
                                            tenantID: tenant.id)
            let classification = TurnClassification(crisis: crisis.map(CrisisAssessment.recorded) ?? .none, route: routed.route,
                                                    domain: routed.domain, crisisSupport: routed.crisisSupport || crisis != nil)
            let plan = try await unstoredPlan(classification, tenantID: tenant.id, locale: locale)
            let recollection = recollect(question, plan: plan, context: context, insights: false)
            return begin(.init(userMessageID: replyTo, assistantMessageID: assistantMessageID), context: context, history: history,
                         message: question, plan: plan, recollection: recollection, route: nil, tenant: tenant,
                         identity: identity, threadID: threadID)
        } catch {
            if leaseTaken { await store.releaseLease(assistantMessageID, tenantID: tenant.id) }
            throw error
        }
    }

    /// The request a send of `content` would make now, and the memory it would carry; nothing is stored.
    func preview(tenant: Tenant, identity: Identity, threadID: UUID, content: String, locale: String?) async throws -> PromptPreview {
        let context = try await context(tenant: tenant, identity: identity, threadID: threadID, before: nil, lease: nil)
        let history = try context.conversation()
        let crisis = safety.detector.assess(content, conversation: TurnSafety.conversation(history: history, memory: context.memory))
        let classification = try await classify(content, crisis: crisis, context: context, history: history,
                                                tenantID: tenant.id)
        let plan = try await unstoredPlan(classification, tenantID: tenant.id, locale: locale)
        let recollection = recollect(content, plan: plan, context: context, insights: true)
        let (request, sections) = request(context, history: history, message: content, plan: plan, recollection: recollection)
        return PromptPreview(
            domain: plan.classification.route.domain,
            crisis: plan.classification.crisis.crisis,
            system: request.system,
            messages: request.messages.map { .init(role: $0.role.rawValue, content: $0.content) },
            sections: sections.map { .init(title: $0.title, items: $0.items) },
            estimatedInputTokens: TokenEstimate.count(request)
        )
    }

    func inFlight(_ assistantMessageID: UUID) -> Generation? {
        registry.find(assistantMessageID)
    }

    /// For an answer stored as streaming that is not in flight here: marks it interrupted if its server is gone
    /// (`nil`: read it again), otherwise the seconds until that server would have lost it.
    func interruptIfAbandoned(_ assistantMessageID: UUID, tenantID: UUID) async throws -> Int? {
        try await database.withTenant(tenantID) { [self] connection in
            try await messages.interruptIfAbandoned(assistantMessageID, tenantID: tenantID, leases: checkpoints.leases, on: connection)
        }
    }

    /// The `crisis` event for a stored answer being replayed: the same announcement its live stream made, with
    /// the tenant's resources for the person's locale now. `nil` when the message showed no crisis.
    func crisisEvent(for message: MessageView, tenantID: UUID, locale: String?) async throws -> CrisisEvent? {
        guard let kind = message.crisisKind else { return nil }
        return CrisisEvent(kind: kind, resources: try await tenantResources(tenantID, locale: locale))
    }

    /// The plan of a retry or a preview: they store nothing first, so the resources a send gets from its statement
    /// are read here — only in crisis support, which is rare enough not to matter for latency.
    private func unstoredPlan(_ classification: TurnClassification, tenantID: UUID, locale: String?) async throws -> Plan {
        guard classification.crisisSupport else { return Plan(classification: classification, resources: []) }
        return Plan(classification: classification, resources: try await tenantResources(tenantID, locale: locale))
    }

    /// The resources for a turn that stores nothing first (a send gets them from its statement).
    private func tenantResources(_ tenantID: UUID, locale: String?) async throws -> [CrisisResource] {
        try await safetySettings.view(tenantID: tenantID, locale: locale).crisisResources
    }

    /// What a send reads and works out before its provider is called, beside its statement: the context (unless
    /// `read` already), the opened history and the message's route. `nil` when the thread is not the person's.
    private func prepare(_ send: TurnStore.Send, read: TurnStore.Context??, tenantID: UUID, userID: UUID, threadID: UUID,
                         key: SymmetricKey) async throws -> (TurnStore.Context, [ChatMessage], TurnClassification)? {
        let read = if let read { read } else {
            try await store.sendContext(question: send.question, tenantID: tenantID, userID: userID, threadID: threadID,
                                        historyLimit: Self.historyLimit, key: key)
        }
        guard let context = read else { return nil }
        let history = try context.conversation()
        let classification = try await classify(send.content, crisis: send.crisis, context: context, history: history, tenantID: tenantID)
        return (context, history, classification)
    }

    /// The context of a retry or a preview; `lease`: admit the person first (a retry).
    private func context(tenant: Tenant, identity: Identity, threadID: UUID, before: UUID?, lease: UUID?) async throws -> TurnStore.Context {
        guard let context = try await store.context(tenantID: tenant.id, userID: identity.userID, threadID: threadID,
                                                     before: before, historyLimit: Self.historyLimit, lease: lease) else {
            throw Conversations.noThread
        }
        return context
    }

    /// The domain route, with the person's previous messages as the router's context, beside the crisis check's
    /// finding.
    private func classify(_ message: String, crisis: CrisisAssessment, context: TurnStore.Context, history: [ChatMessage],
                          tenantID: UUID) async throws -> TurnClassification {
        let catalog = try await domains.catalog(tenantID: tenantID, stamp: context.domainStamp)
        let recent = history.filter { $0.role == .user }.suffix(2).map(\.content)
        return safety.classify(message, crisis: crisis, catalog: catalog, recent: recent, threadDomain: context.domain,
                               pinned: context.domainPinned, crisisAt: context.crisisAt)
    }

    /// Memory for the answer, in the turn's domain; no insight is raised during crisis support.
    private func recollect(_ message: String, plan: Plan, context: TurnStore.Context, insights: Bool) -> Recollection {
        Recall.recollect(message: message, domain: plan.classification.route.domain, memory: context.memory,
                         insights: insights && !plan.classification.crisisSupport)
    }

    /// The request for the model (and the remembered sections it carries): the same for a send, a retry and
    /// the preview. Everything the person wrote, or that was remembered from it, is neutralised first.
    private func request(_ context: TurnStore.Context, history: [ChatMessage], message: String, plan: Plan,
                         recollection: Recollection) -> (CompletionRequest, [PromptSection]) {
        let situation = CoachingInstructions.Situation(
            sessionType: context.sessionType, domain: plan.classification.domain, persona: context.persona,
            crisis: plan.classification.crisisSupport ? (plan.classification.crisis.crisis, plan.resources) : nil,
            opening: history.isEmpty
        )
        let sections = (context.profile.promptSections + recollection.sections).map { section in
            var section = section
            section.items = section.items.map(PromptHardening.neutralise)
            return section
        }
        return prompt.assemble(instructions: CoachingInstructions.text(for: situation), sections: sections,
                               history: history.map { ChatMessage(role: $0.role, content: PromptHardening.neutralise($0.content)) },
                               message: PromptHardening.neutralise(message))
    }

    // MARK: - Generating

    /// `route`: the domain a send's question was routed to, stored with the answer (`nil` for a retry).
    private func begin(_ exchange: MessageStore.Exchange, context: TurnStore.Context, history: [ChatMessage], message: String, plan: Plan,
                       recollection: Recollection, route: String?, tenant: Tenant, identity: Identity, threadID: UUID) -> Generation {
        let generation = Generation(threadID: threadID, userMessageID: exchange.userMessageID, assistantMessageID: exchange.assistantMessageID)
        registry.add(generation)
        let checkpoint = checkpoints.open(tenantID: tenant.id, userID: identity.userID, id: exchange.assistantMessageID, key: context.key)
        let (request, _) = request(context, history: history, message: message, plan: plan, recollection: recollection)
        // Nearing their monthly budget, the person is answered by the tenant's economy model.
        let chain = factory.chain(for: context.providers, economyModel: context.admission?.economyModel)
        // Only a message that showed a crisis announces one; later messages in crisis support just follow it.
        let crisis = plan.classification.crisis.crisis.map { CrisisEvent(kind: $0, resources: plan.resources) }
        // Not a child of the request: a client that disconnects must not cancel the answer. It runs where the
        // request does, on its connection's event loop (EventLoopExecutors).
        Task(executorPreference: EventLoopTaskExecutor.current) { [self] in
            await run(generation, checkpoint: checkpoint, request: request, recollection: recollection, crisis: crisis, chain: chain,
                      route: route, tenant: tenant, identity: identity, key: context.key)
            checkpoints.close(checkpoint)
            registry.remove(exchange.assistantMessageID)
        }
        return generation
    }

    private func run(
        _ generation: Generation, checkpoint: AnswerCheckpoints.Answer, request: CompletionRequest, recollection: Recollection, crisis: CrisisEvent?, chain: ProviderChain,
        route: String?, tenant: Tenant, identity: Identity, key: SymmetricKey
    ) async {
        let started = ContinuousClock.now
        // The provider is asked first (the chain's stream sends the primary's request at once): the events before
        // the answer go out while it thinks, instead of delaying the request. The loop below takes the only
        // reference, so that leaving it ends the stream.
        var answer = Optional(chain.stream(request))
        // The request goes out from a task of its own on this event loop, which runs only once this task lets it:
        // let it now, so the provider starts thinking before the events below are written rather than after.
        await Task.yield()
        await generation.emit("start", StartEvent(threadId: generation.threadID, userMessageId: generation.userMessageID,
                                                   assistantMessageId: generation.assistantMessageID))
        if let crisis {
            await generation.emit("crisis", crisis)
        }
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
        var review = AnswerReview()
        do {
            streaming: for try await event in answer.take()! {
                switch event {
                case .answering(let kind, let model):
                    provider = (kind, model)
                    firstToken = ContinuousClock.now - started
                case .delta(let delta):
                    text += delta
                    checkpoint.append(delta)
                    await generation.emit("delta", DeltaEvent(text: delta))
                    // Leaving the loop ends the provider's stream: nothing more of a redirected answer is wanted.
                    if review.check(&text, final: false) { break streaming }
                case .usage(let input, let output):
                    reported = (input, output)
                }
            }
        } catch let error as ProviderChain.ChainFailure {
            failure = error
        } catch {
            failure = .unavailable([])
        }
        if failure == nil, review.concern == nil { review.check(&text, final: true) }
        if let concern = review.concern {
            logger.notice("answer redirected by the guardrails", metadata: ["message_id": .string(generation.assistantMessageID.uuidString),
                                                                           "concern": .string(concern.rawValue)])
            await generation.emit("guardrail", GuardrailEvent(concern: concern, content: text))
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
            let recorded = try await store.finish(record, content: text, status: status, domain: route, key: key)
            switch failure {
            case nil:
                await generation.emit("done", DoneEvent(assistantMessageId: generation.assistantMessageID, status: status,
                                                        provider: provider.kind, model: provider.model, usage: recorded))
                await generation.finish(.init(content: text, status: status, provider: provider.kind, model: provider.model, usage: recorded,
                                              errorCode: nil, crisis: crisis))
            case .interrupted?:
                await fail(generation, code: "provider_interrupted", message: "The answer was interrupted. Retry to regenerate it.",
                           status: status, content: text, provider: provider, usage: recorded, crisis: crisis)
            case .unavailable?:
                await fail(generation, code: "providers_unavailable", message: "The coaching service is temporarily unavailable.",
                           status: status, content: text, provider: provider, usage: recorded, crisis: crisis)
            }
        } catch {
            logger.error("storing an answer failed", metadata: ["message_id": .string(generation.assistantMessageID.uuidString), "error": .error(error)])
            await fail(generation, code: "internal_error", message: "The answer could not be saved. Retry to regenerate it.",
                       status: .failed, content: text, provider: provider, usage: nil, crisis: crisis)
        }
    }

    private func fail(_ generation: Generation, code: String, message: String, status: MessageStatus, content: String,
                      provider: (kind: String, model: String), usage: Usage?, crisis: CrisisEvent?) async {
        await generation.emit("error", ErrorEvent(code: code, message: message, retryable: true,
                                                  assistantMessageId: generation.assistantMessageID, status: status))
        await generation.finish(.init(content: content, status: status, provider: provider.kind, model: provider.model, usage: usage, errorCode: code,
                                      crisis: crisis))
    }
}

// MARK: - Stream events (the vocabulary is documented in docs/api.md)

struct StartEvent: WrittenEvent {
    let threadId: UUID
    let userMessageId: UUID
    let assistantMessageId: UUID

    func write(to json: inout JSONWriter) {
        json.raw(#"{"assistantMessageId":"#)
        json.uuid(assistantMessageId)
        json.raw(#","threadId":"#)
        json.uuid(threadId)
        json.raw(#","userMessageId":"#)
        json.uuid(userMessageId)
        json.raw("}")
    }
}

/// Answer text: the event a stream sends most.
struct DeltaEvent: WrittenEvent {
    let text: String

    var capacity: Int { text.utf8.count + 16 }

    func write(to json: inout JSONWriter) {
        json.raw(#"{"text":"#)
        json.string(text)
        json.raw("}")
    }
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

struct DoneEvent: WrittenEvent {
    let assistantMessageId: UUID
    let status: MessageStatus
    let provider: String
    let model: String
    let usage: Usage

    func write(to json: inout JSONWriter) {
        json.raw(#"{"assistantMessageId":"#)
        json.uuid(assistantMessageId)
        json.raw(#","model":"#)
        json.string(model)
        json.raw(#","provider":"#)
        json.string(provider)
        json.raw(#","status":"#)
        json.string(status.rawValue)
        json.raw(#","usage":{"costMicros":"#)
        json.int(usage.costMicros)
        json.raw(#","estimated":"#)
        json.bool(usage.estimated)
        json.raw(#","inputTokens":"#)
        json.int(usage.inputTokens)
        json.raw(#","outputTokens":"#)
        json.int(usage.outputTokens)
        json.raw("}}")
    }
}

struct ErrorEvent: Encodable {
    let code: String
    let message: String
    let retryable: Bool
    let assistantMessageId: UUID
    let status: MessageStatus
}
