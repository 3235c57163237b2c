import Accounts
import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import Memory
import PostgresNIO
import Safety

/// Owns `messages`. Content is sealed with the user's data key, bound to the message id.
struct MessageStore: Sendable {
    enum Order: String, Sendable { case newest, oldest }

    /// An assistant message and the user message it answers, for idempotent replays and retries.
    struct Exchange: Sendable {
        let userMessageID: UUID
        let assistantMessageID: UUID
    }

    let logger: Logger

    /// A message's content sealed for its row (the row id is authenticated with it).
    static func seal(_ content: String, id: UUID, key: SymmetricKey) throws -> Data {
        Data(try FieldCipher.seal(content, key: key, context: context(id)))
    }

    static func open(_ sealed: Data, id: UUID, key: SymmetricKey) throws -> String {
        try FieldCipher.open(Array(sealed), key: key, context: context(id))
    }

    private static func context(_ id: UUID) -> String { "messages.content:\(id.uuidString.lowercased())" }

    /// What marking an answer for regeneration found.
    enum Restart {
        /// Marked: the question it answers and the crisis that question showed, if any.
        case restarted(replyTo: UUID?, crisis: CrisisKind?)
        /// The answer is complete, or still streaming on a live server (`retryAfter`: the seconds until it would have
        /// lost it).
        case notRetryable(retryAfter: Int?)
        /// No such answer in the person's thread.
        case noAnswer
    }

    /// Marks a stored interrupted, failed or abandoned answer (its server gone: migration 0042) as being regenerated,
    /// in one statement that also tells an answer that is not retryable from one that does not exist.
    func restart(_ id: UUID, threadID: UUID, userID: UUID, key: SymmetricKey, leases: AnswerLeases,
                 on connection: PostgresConnection) async throws -> Restart {
        let sealed = try Self.seal("", id: id, key: key)
        let rows = try await connection.query(
            """
            WITH answer AS (
                SELECT id, status, streaming_since, alive_until FROM messages
                WHERE id = \(id) AND thread_id = \(threadID) AND user_id = \(userID) AND role = 'assistant'
            ), restarted AS (
                UPDATE messages SET status = 'streaming', streaming_since = now(), alive_until = NULL, content_ciphertext = \(sealed),
                                    provider = NULL, model = NULL, completed_at = NULL
                WHERE id IN (SELECT id FROM answer)
                  AND (status IN ('interrupted', 'failed')
                       OR (status = 'streaming' AND hearth_answer_abandoned(streaming_since, alive_until, \(leases.lifetimeSeconds))))
                RETURNING reply_to, crisis_kind
            )
            SELECT true, reply_to, crisis_kind, NULL::bigint FROM restarted
            UNION ALL
            SELECT false, NULL::uuid, NULL::text,
                   CASE WHEN status = 'streaming' THEN hearth_answer_seconds_left(streaming_since, alive_until, \(leases.lifetimeSeconds)) END
            FROM answer WHERE NOT EXISTS (SELECT 1 FROM restarted)
            """,
            logger: logger
        )
        for try await (marked, replyTo, crisis, left) in rows.decode((Bool, UUID?, String?, Int64?).self) {
            return marked ? .restarted(replyTo: replyTo, crisis: crisis.flatMap(CrisisKind.init(rawValue:))) : .notRetryable(retryAfter: left.map(Int.init))
        }
        return .noAnswer
    }

    /// An answer streaming on no server of this one's: interrupted now when its server is gone (`nil`), otherwise the
    /// seconds until it would be. Also `nil` when it is no longer streaming (read it again).
    func interruptIfAbandoned(_ id: UUID, tenantID: UUID, leases: AnswerLeases, on connection: PostgresConnection) async throws -> Int? {
        let rows = try await connection.query(
            "SELECT hearth_answer_interrupt_if_abandoned(\(tenantID), \(id), \(leases.lifetimeSeconds))", logger: logger
        )
        for try await left in rows.decode(Int64?.self) {
            return left.flatMap { $0 > 0 ? Int($0) : nil }
        }
        return nil
    }

    func message(_ id: UUID, threadID: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> MessageView? {
        let rows = try await connection.query(
            """
            SELECT id, role, status, content_ciphertext, reply_to, provider, model, created_at, crisis_kind
            FROM messages WHERE id = \(id) AND thread_id = \(threadID) AND user_id = \(userID)
            """,
            logger: logger
        )
        for try await row in rows.decode((UUID, String, String, Data, UUID?, String?, String?, Date, String?).self) {
            return try view(row, key: key)
        }
        return nil
    }

    /// A page of a thread's messages in one statement (`hearth_message_page`, migration 0027; decision 0016): the
    /// request's session checked and counted (``SessionGate``, the 401 or 429 thrown), the user's key, the thread's
    /// owner and the page. nil: the user has no such thread.
    func page(tenantID: UUID, identity: Identity, threadID: UUID, order: Order, limit: Int, after cursor: Cursor?, keys: UserDataKeys,
              client: PostgresClient) async throws -> (MessagePage, RateLimit)? {
        var limitState: RateLimit?
        var key: SymmetricKey?
        var found = false
        var messages: [MessageView] = []
        var sequence: [Int64] = []
        try await SessionGate.countingTheTenantLast {
            let rows = try await client.liveRows(
                """
                SELECT * FROM hearth_message_page(\(tenantID), \(identity.userID), \(threadID), \(identity.sessionID),
                                                  \(order == .newest), \(cursor?.position), \(limit))
                """,
                logger: logger
            )
            for (kind, id, seq, role, status, replyTo, provider, model, createdAt, crisisKind, sealed, name, quota, used, window, reset)
                in try rows.decode((String, UUID?, Int64?, String?, String?, UUID?, String?, String?, Date?, String?, Data?,
                                    String?, Int64?, Int64?, Int?, Int?).self) {
                switch kind {
                case "gate":
                    limitState = try SessionGate(gateRowName: name, quota: quota, window: window, used: used, reset: reset).admit()
                case "key":
                    guard let seq, let sealed else { continue }
                    key = try keys.unwrap(masterVersion: Int(seq), wrapped: Array(sealed), of: identity.userID)
                case "thread":
                    found = true
                case "message":
                    guard let key, let id, let seq, let role, let status, let createdAt, let sealed else { continue }
                    messages.append(try view((id, role, status, sealed, replyTo, provider, model, createdAt, crisisKind), key: key))
                    sequence.append(seq)
                default:
                    continue
                }
            }
        }
        guard let limitState else { throw APIError.sessionRevoked }
        guard key != nil else { throw UserDataKeys.accountGone }
        guard found else { return nil }
        let more = messages.count > limit
        return (MessagePage(messages: Array(messages.prefix(limit)), nextCursor: more ? Cursor(position: sequence[limit - 1]).string : nil),
                limitState)
    }

    /// Every message of a thread, oldest first: the data export's.
    func all(of threadID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> [MessageView] {
        let rows = try await connection.query(
            """
            SELECT id, role, status, content_ciphertext, reply_to, provider, model, created_at, crisis_kind FROM messages
            WHERE thread_id = \(threadID) ORDER BY seq
            """,
            logger: logger
        )
        var messages: [MessageView] = []
        for try await row in rows.decode((UUID, String, String, Data, UUID?, String?, String?, Date, String?).self) {
            messages.append(try view(row, key: key))
        }
        return messages
    }

    /// A thread's complete messages after `seq` up to `through`, oldest first, for Memory's summaries (answers being generated,
    /// interrupted or failed are not part of what was said). A crisis exchange is left out: what someone writes
    /// in crisis is not a fact or a pattern to coach them on later, and coaching resumes without it (FR22).
    func transcript(threadID: UUID, after seq: Int64, through: Int64, key: SymmetricKey,
                    on connection: PostgresConnection) async throws -> [Transcript.Message] {
        let rows = try await connection.query(
            """
            SELECT id, seq, role, content_ciphertext, created_at FROM messages
            WHERE thread_id = \(threadID) AND seq > \(seq) AND seq <= \(through) AND status = 'complete' AND crisis_kind IS NULL
            ORDER BY seq
            """,
            logger: logger
        )
        var messages: [Transcript.Message] = []
        for try await (id, seq, role, sealed, created) in rows.decode((UUID, Int64, String, Data, Date).self) {
            messages.append(.init(seq: seq, role: role == "user" ? .user : .assistant, content: try Self.open(sealed, id: id, key: key), at: created))
        }
        return messages
    }

    /// Whether any of the user's threads has an answer stored in full.
    func hasCompleteAnswer(userID: UUID, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT EXISTS (
                SELECT 1 FROM threads t JOIN messages m ON m.tenant_id = t.tenant_id AND m.thread_id = t.id
                WHERE t.user_id = \(userID) AND m.role = 'assistant' AND m.status = 'complete'
            )
            """,
            logger: logger
        )
        return try await rows.collect().first?.decode(Bool.self) ?? false
    }

    private func view(_ row: (UUID, String, String, Data, UUID?, String?, String?, Date, String?), key: SymmetricKey) throws -> MessageView {
        MessageView(
            id: row.0, role: row.1,
            content: try Self.open(row.3, id: row.0, key: key),
            status: MessageStatus(rawValue: row.2) ?? .complete,
            replyTo: row.4, provider: row.5, model: row.6, createdAt: row.7, crisisKind: row.8.flatMap(CrisisKind.init(rawValue:))
        )
    }
}
