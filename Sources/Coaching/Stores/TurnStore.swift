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
import Safety

/// The chat turn's statements: a send's `hearth_turn_begin` and, beside it, `hearth_turn_send_context` (migration
/// 0036, decision 0023), the context read of the turns that store nothing first (`hearth_turn_context`: a retry, the
/// preview) and `hearth_turn_finish` (decision 0005). They read and write `threads`, `messages`, `context_profiles`,
/// `tenant_llm_providers`, `usage_records` and `crisis_events`, and read `user_keys`, `tenant_safety_locales` and the
/// stamp of `domain_versions`, on the turn's hot path only; everything else reaches those tables through their own stores. Memory's tables are read and noted through Memory's own SQL functions
/// (`hearth_memory_context`, `hearth_memory_note_turn`), and opened by Memory (``TurnMemory/open``).
/// Each runs outside any transaction: the function scopes its own implicit transaction to the tenant. Each is read
/// whole on a connection that cannot be lost under it (``PostgresClient/liveRows(_:logger:)``).
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
        /// What the admission decided: a retry's read with a lease, or a send's `begin` (``TurnStore/Begun``).
        var admission: Admission?

        /// The history opened with the user's key; an answer stored empty (a failed start) is left out.
        func conversation() throws -> [ChatMessage] {
            try history.compactMap { message in
                let text = try MessageStore.open(message.sealed, id: message.id, key: key)
                return text.isEmpty ? nil : ChatMessage(role: message.role, content: text)
            }
        }
    }

    /// What a send's ``begin(_:tenantID:userID:threadID:session:key:)`` led to.
    enum Begun: Sendable {
        /// The exchange is committed, the person admitted as `admission` says. `resources`: the tenant's crisis
        /// resources (JSON) for the first of the person's locales it has, read when the thread is in crisis support.
        case stored(MessageStore.Exchange, admission: Admission?, resources: Data?)
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
    /// be generated) the read first admits the person (``Admission``) and throws its refusal: a retry is refused
    /// before anything is stored, in the round trip the turn makes anyway. A send reads its context with
    /// ``sendContext(_:tenantID:userID:threadID:historyLimit:key:)`` instead.
    func context(tenantID: UUID, userID: UUID, threadID: UUID, before: UUID?, historyLimit: Int, lease: UUID?) async throws -> Context? {
        var read = ContextRows(keys: keys, userID: userID, threadID: threadID)
        let rows = try await client.liveRows(
            "SELECT * FROM hearth_turn_context(\(tenantID), \(userID), \(threadID), \(before), \(historyLimit), \(lease))",
            logger: logger
        )
        for row in rows {
            try read.take(ContextRows.columns(of: row))
        }
        if let refusal = read.admission?.refusal { throw refusal }
        return try read.context()
    }

    /// What a send stores: its question (sealed here with the user's key) and the placeholder its answer streams into.
    struct Send: Sendable {
        let question: UUID
        let content: String
        let idempotencyKey: String?
        /// The answer's id: the stream lease the admission takes.
        let answer: UUID
        let crisis: CrisisAssessment
        /// The person's locales, most specific first, for the tenant's crisis resources.
        let locales: [String]
    }

    /// A send's context, read while ``begin(_:tenantID:userID:threadID:session:key:)`` commits its question
    /// (`hearth_turn_send_context`, migration 0036; decision 0023): the history leaves the question out even if
    /// that statement committed first. `nil` when the user has no such thread. It checks nothing and writes nothing:
    /// only a send that `begin` stored uses it. `key`: the user's data key, which the caller already holds.
    func sendContext(question: UUID, tenantID: UUID, userID: UUID, threadID: UUID, historyLimit: Int, key: SymmetricKey) async throws -> Context? {
        let statement = TurnStatements.SendContext(tenantID: tenantID, userID: userID, threadID: threadID, question: question,
                                                   historyLimit: historyLimit)
        var read = ContextRows(keys: keys, userID: userID, threadID: threadID)
        read.key = key
        for row in try await client.liveRows(statement, logger: logger) {
            try read.take(row)
        }
        return try read.context()
    }

    /// A send's round trip before the provider (`hearth_turn_begin`, migration 0036; decisions 0018 and 0023): checks
    /// the session and the person's limit (throwing the 401 or 429), answers an idempotent replay, admits the person
    /// (throwing the refusal) and commits the question, its placeholder and any crisis they showed; the tenant's
    /// request is counted last (``SessionGate``). `key`: the user's data key, which the caller already holds
    /// (``RecentDataKeys``). `limit`: the request's rate limit, for the answer's `RateLimit` fields.
    func begin(_ send: Send, tenantID: UUID, userID: UUID, threadID: UUID, session: UUID,
               key: SymmetricKey) async throws -> (begun: Begun, limit: RateLimit?) {
        let statement = TurnStatements.Begin(
            tenantID: tenantID, userID: userID, threadID: threadID, session: session,
            idempotencyKey: send.idempotencyKey, question: send.question,
            questionSealed: try MessageStore.seal(send.content, id: send.question, key: key), answer: send.answer,
            answerSealed: try MessageStore.seal("", id: send.answer, key: key), crisis: send.crisis.crisis?.rawValue,
            signals: send.crisis.isCrisis ? send.crisis.signals.map(\.cue) : [], locales: send.locales,
            supportSeconds: Int(TurnSafety.supportWindow)
        )
        var read = ContextRows(keys: keys, userID: userID, threadID: threadID)
        var outcome: (kind: String, question: UUID, answer: UUID)?
        var resources: Data?
        try await SessionGate.countingTheTenantLast {
            for row in try await client.liveRows(statement, logger: logger) {
                try read.take(row)
                switch (row.0, row.1, row.6.flatMap(UUID.init(uuidString:))) {
                case ("stored", let question?, let answer?), ("replay", let question?, let answer?):
                    outcome = (row.0, question, answer)
                case ("resources", _, _):
                    resources = row.6.map { Data($0.utf8) }
                default:
                    continue
                }
            }
        }
        if let refusal = read.admission?.refusal { throw refusal }
        guard read.hasThread else { return (.noThread, read.requestLimit) }
        switch outcome {
        case ("stored", let question, let answer)?:
            return (.stored(MessageStore.Exchange(userMessageID: question, assistantMessageID: answer), admission: read.admission,
                            resources: resources), read.requestLimit)
        case (_, let question, let answer)?:
            return (.replay(MessageStore.Exchange(userMessageID: question, assistantMessageID: answer)), read.requestLimit)
        case nil:
            return (.inProgress, read.requestLimit)
        }
    }

    /// Gives back the stream lease of an answer that will not be generated (a replay, a failure before the
    /// provider call); a stored answer gives its own back in ``finish(_:content:status:domain:key:)``.
    func releaseLease(_ lease: UUID, tenantID: UUID) async {
        do {
            try await client.liveRows("SELECT hearth_stream_release(\(tenantID), \(lease))", logger: logger)
        } catch {
            // It expires on its own (migrations/0021_billing.sql); worth a log line, not a failed request.
            logger.warning("releasing a stream lease failed", metadata: ["error": .error(error)])
        }
    }

    /// Stores an answer's final state and its usage record in one transaction; returns what the client is told.
    /// `domain`: the route of a send's question, stored on both messages and made the thread's (`nil` for a retry,
    /// which keeps the first answer's).
    func finish(_ record: UsageStore.Record, content: String, status: MessageStatus, domain: String?, key: SymmetricKey) async throws -> Usage {
        let statement = TurnStatements.Finish(record: record, sealed: try MessageStore.seal(content, id: record.messageID, key: key),
                                              status: status.rawValue, domain: domain)
        var cost: Int64 = 0
        for row in try await client.liveRows(statement, logger: logger) { cost = row }
        return Usage(inputTokens: record.inputTokens, outputTokens: record.outputTokens, estimated: record.estimated, costMicros: cost)
    }
}
