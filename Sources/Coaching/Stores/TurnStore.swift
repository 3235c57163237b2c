import Accounts
import Billing
import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import Memory
import Personas
import PostgresNIO

/// The chat turn's three statements, one round trip each: the functions of migrations/0006_chat_turn.sql and
/// 0010, 0012 and 0014 (decision 0005). They read and write `threads`, `messages`, `user_keys`, `context_profiles`,
/// `tenant_llm_providers`, `usage_records` and `crisis_events`, and read `tenant_safety_locales` and the stamp of
/// `domain_versions`, on the turn's hot path only; everything else reaches those tables through their own stores. Memory's tables are read and noted through Memory's own SQL functions
/// (`hearth_memory_context`, `hearth_memory_note_turn`), and opened by Memory (``TurnMemory/open``).
/// Each runs outside any transaction: the function scopes its own implicit transaction to the tenant.
struct TurnStore: Sendable {
    /// What a turn reads before the provider is called.
    struct Context: Sendable {
        let sessionType: SessionType
        let domain: String?
        /// The person chose the domain when opening the thread: the router leaves it.
        let domainPinned: Bool
        /// When the thread last showed a crisis.
        let crisisAt: Date?
        /// The tenant's domain catalog stamp (``CoachingDomains/catalog(tenantID:stamp:)``).
        let domainStamp: Int64?
        /// The published copy of the persona the thread was started with, while it is live.
        let persona: PersonaContent?
        let key: SymmetricKey
        /// Empty when the user has not set one up.
        let profile: ContextProfile
        /// Facts and summaries (tiers 3 and 2).
        let memory: TurnMemory
        let providers: [ProviderSetting]
        /// Sealed recent messages, oldest first.
        let history: [(id: UUID, role: ChatMessage.Role, sealed: Data)]
        /// What the admission decided (admitted: a read with a lease only).
        let admission: Admission?
        /// The request's rate limit, when the read checked the session (a send; decision 0015).
        let requestLimit: RateLimit?

        /// The history opened with the user's key; an answer stored empty (a failed start) is left out.
        func conversation() throws -> [ChatMessage] {
            try history.compactMap { message in
                let text = try MessageStore.open(message.sealed, id: message.id, key: key)
                return text.isEmpty ? nil : ChatMessage(role: message.role, content: text)
            }
        }
    }

    enum Stored: Sendable {
        /// `resources`: the tenant's crisis resources (JSON) for the first of the locales it has, when locales were given.
        case stored(MessageStore.Exchange, resources: Data?)
        /// An earlier send with the same idempotency key stored this exchange; nothing was inserted.
        case replay(MessageStore.Exchange)
        case noThread
        /// The idempotency key is taken but its exchange is not visible (cannot happen while both rows are
        /// inserted in one transaction; answered as a retryable conflict rather than trusted).
        case inProgress
    }

    let client: PostgresClient
    let keys: UserDataKeys
    let logger: Logger

    /// `nil` when the user has no such thread (or no longer exists). With a `lease` (the id of the answer about to
    /// be generated) the read first admits the person (``Admission``) and throws its refusal: a send or retry is
    /// refused before anything is stored, in the round trip the turn makes anyway. With a `session` the read
    /// first checks it and the person's rate limit and counts the tenant's last (``SessionGate``, migration 0028),
    /// throwing the 401 or 429.
    func context(tenantID: UUID, userID: UUID, threadID: UUID, before: UUID?, historyLimit: Int, lease: UUID?,
                 session: UUID? = nil) async throws -> Context? {
        var sessionType: SessionType?
        var domain: String?
        var domainPinned = false
        var crisisAt: Date?
        var domainStamp: Int64?
        var persona: PersonaContent?
        var key: SymmetricKey?
        var sealedProfile: Data?
        var memoryRows: [TurnMemory.Row] = []
        var providers: [ProviderSetting] = []
        var history: [(id: UUID, role: ChatMessage.Role, sealed: Data)] = []
        var admission: Admission?
        var requestLimit: RateLimit?
        try await SessionGate.countingTheTenantLast {
            let rows = try await client.query(
                "SELECT * FROM hearth_turn_context(\(tenantID), \(userID), \(threadID), \(before), \(historyLimit), \(lease), \(session))",
                logger: logger
            )
            for try await (kind, id, number, name, model, url, reference, sealed)
                in rows.decode((String, UUID?, Int?, String?, String?, String?, String?, Data?).self) {
                switch kind {
                case "gate":
                    // First when asked for: a session that is not live or a request over its limit ends the read here.
                    requestLimit = try SessionGate(gateRowName: name, quota: model.flatMap { Int64($0) }, window: reference.flatMap { Int($0) },
                                                   used: url.flatMap { Int64($0) }, reset: number).admit()
                case "thread":
                    sessionType = name.flatMap(SessionType.init(rawValue:))
                    domain = model
                    crisisAt = url.flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
                    domainPinned = reference == "pinned"
                case "admission":
                    admission = try reference.map(Admission.init(json:))
                case "domains":
                    domainStamp = reference.flatMap { Int64($0) }
                case "persona":
                    persona = try reference.map { try JSONDecoder().decode(PersonaContent.self, from: Data($0.utf8)) }
                case "key":
                    guard let number, let sealed else { continue }
                    key = try keys.unwrap(masterVersion: number, wrapped: Array(sealed), of: userID)
                case "profile":
                    sealedProfile = sealed
                case _ where TurnMemory.rowKinds.contains(kind):
                    memoryRows.append(.init(kind: kind, id: id, number: number, name: name, model: model, url: url, reference: reference, sealed: sealed))
                case "provider":
                    guard let position = number.flatMap(ProviderSetting.Position.init(rawValue:)), let name, let model else { continue }
                    providers.append(ProviderSetting(position: position, kind: name, model: model, baseURL: url, apiKeyReference: reference))
                case "message":
                    guard let id, let sealed else { continue }
                    history.append((id, name == "user" ? .user : .assistant, sealed))
                default:
                    continue
                }
            }
        }
        if let refusal = admission?.refusal { throw refusal }
        guard let sessionType, let key else { return nil }
        let profile = try sealedProfile.map { try ContextProfile(sealed: Array($0), key: key, userID: userID) } ?? ContextProfile()
        let memory = try TurnMemory.open(threadID: threadID, rows: memoryRows, key: key)
        return Context(sessionType: sessionType, domain: domain, domainPinned: domainPinned, crisisAt: crisisAt, domainStamp: domainStamp, persona: persona, key: key, profile: profile, memory: memory, providers: providers, history: history,
                       admission: admission, requestLimit: requestLimit)
    }

    /// Commits the user's message and the placeholder its answer streams into, with what the turn found: the
    /// domain (which becomes the thread's) and a crisis (recorded as a `crisis_events` row, by signal names).
    /// `answer`: the id the answer will have (the lease the admission took).
    func storeExchange(tenantID: UUID, userID: UUID, threadID: UUID, content: String, idempotencyKey: String?,
                       classification: TurnClassification, locales: [String]?, answer: UUID, key: SymmetricKey) async throws -> Stored {
        let question = UUID()
        let questionSealed = try MessageStore.seal(content, id: question, key: key)
        let answerSealed = try MessageStore.seal("", id: answer, key: key)
        let crisis = classification.crisis.crisis?.rawValue
        let signals = classification.crisis.isCrisis ? classification.crisis.signals.map(\.cue) : []
        let rows = try await client.query(
            """
            SELECT outcome, question_id, answer_id, resources::text FROM hearth_turn_store_exchange(
                \(tenantID), \(userID), \(threadID), \(idempotencyKey), \(question), \(questionSealed), \(answer), \(answerSealed),
                \(classification.route.domain), \(crisis), \(signals), \(locales))
            """,
            logger: logger
        )
        for try await (outcome, questionID, answerID, resources) in rows.decode((String, UUID?, UUID?, String?).self) {
            switch (outcome, questionID, answerID) {
            case ("stored", let user?, let assistant?):
                return .stored(.init(userMessageID: user, assistantMessageID: assistant), resources: resources.map { Data($0.utf8) })
            case ("replay", let user?, let assistant?):
                return .replay(.init(userMessageID: user, assistantMessageID: assistant))
            case ("no_thread", _, _):
                return .noThread
            default:
                continue
            }
        }
        return .inProgress
    }

    /// Gives back the stream lease of an answer that will not be generated (a replay, a failure before the
    /// provider call); a stored answer gives its own back in ``finish(_:content:status:key:)``.
    func releaseLease(_ lease: UUID, tenantID: UUID) async {
        do {
            try await client.query("SELECT hearth_stream_release(\(tenantID), \(lease))", logger: logger)
        } catch {
            // It expires on its own (migrations/0021_billing.sql); worth a log line, not a failed request.
            logger.warning("releasing a stream lease failed", metadata: ["error": .string(String(reflecting: error))])
        }
    }

    /// Stores an answer's final state and its usage record in one transaction; returns what the client is told.
    func finish(_ record: UsageStore.Record, content: String, status: MessageStatus, key: SymmetricKey) async throws -> Usage {
        let sealed = try MessageStore.seal(content, id: record.messageID, key: key)
        let rows = try await client.query(
            """
            SELECT hearth_turn_finish(\(record.tenantID), \(record.userID), \(record.threadID), \(record.messageID), \(sealed),
                                      \(status.rawValue), \(record.provider), \(record.model), \(record.inputTokens),
                                      \(record.outputTokens), \(record.estimated),
                                      \(record.timeToFirstToken.map(UsageStore.milliseconds)), \(UsageStore.milliseconds(record.total)),
                                      \(record.outcome.rawValue))
            """,
            logger: logger
        )
        let cost = try await rows.collect().first?.decode(Int64.self) ?? 0
        return Usage(inputTokens: record.inputTokens, outputTokens: record.outputTokens, estimated: record.estimated, costMicros: cost)
    }
}
