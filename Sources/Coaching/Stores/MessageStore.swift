import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import PostgresNIO

/// Owns `messages`. Content is sealed with the user's data key, bound to the message id.
struct MessageStore: Sendable {
    enum Order: String, Sendable { case newest, oldest }

    /// An assistant message and the user message it answers, for idempotent replays and retries.
    struct Exchange: Sendable {
        let userMessageID: UUID
        let assistantMessageID: UUID
    }

    let logger: Logger

    static func contentContext(_ id: UUID) -> String { "messages.content:\(id.uuidString.lowercased())" }

    /// Stores the user's message and the placeholder its answer streams into (status `streaming`, empty
    /// content), in one statement. Returns nil when an earlier send with the same idempotency key already
    /// stored this exchange (then nothing is inserted).
    func insertExchange(
        tenantID: UUID, threadID: UUID, userID: UUID, content: String, idempotencyKey: String?, key: SymmetricKey,
        on connection: PostgresConnection
    ) async throws -> Exchange? {
        let userMessageID = UUID()
        let assistantMessageID = UUID()
        let question = Data(try FieldCipher.seal(content, key: key, context: Self.contentContext(userMessageID)))
        let placeholder = Data(try FieldCipher.seal("", key: key, context: Self.contentContext(assistantMessageID)))
        // The answer's row reads the question's, so the question is inserted first and gets the lower `seq`.
        let rows = try await connection.query(
            """
            WITH question AS (
                INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, idempotency_key, completed_at)
                VALUES (\(userMessageID), \(tenantID), \(threadID), \(userID), 'user', 'complete', \(question), \(idempotencyKey), now())
                ON CONFLICT (tenant_id, thread_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
                RETURNING id
            )
            INSERT INTO messages (id, tenant_id, thread_id, user_id, role, status, content_ciphertext, reply_to)
            SELECT \(assistantMessageID), \(tenantID), \(threadID), \(userID), 'assistant', 'streaming', \(placeholder), id FROM question
            RETURNING id
            """,
            logger: logger
        )
        return try await rows.collect().isEmpty ? nil : Exchange(userMessageID: userMessageID, assistantMessageID: assistantMessageID)
    }

    func exchange(idempotencyKey: String, threadID: UUID, on connection: PostgresConnection) async throws -> Exchange? {
        let rows = try await connection.query(
            """
            SELECT u.id, a.id FROM messages u JOIN messages a ON a.reply_to = u.id AND a.role = 'assistant'
            WHERE u.thread_id = \(threadID) AND u.idempotency_key = \(idempotencyKey)
            """,
            logger: logger
        )
        for try await (user, assistant) in rows.decode((UUID, UUID).self) { return Exchange(userMessageID: user, assistantMessageID: assistant) }
        return nil
    }

    /// Stores the final state of an answer.
    func finish(_ id: UUID, content: String, status: MessageStatus, provider: String?, model: String?, key: SymmetricKey, on connection: PostgresConnection) async throws {
        let sealed = Data(try FieldCipher.seal(content, key: key, context: Self.contentContext(id)))
        try await connection.query(
            """
            UPDATE messages SET content_ciphertext = \(sealed), status = \(status.rawValue), provider = \(provider), model = \(model),
                                completed_at = now()
            WHERE id = \(id)
            """,
            logger: logger
        )
    }

    /// An answer still `streaming` after this long has lost its server (it crashed or was killed): no
    /// generation runs that long, given the providers' timeouts. It may then be retried.
    static let abandonedAfterSeconds = 300

    /// Marks a stored interrupted, failed or abandoned answer as being regenerated; `nil` if it is not retryable.
    func restart(_ id: UUID, threadID: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> UUID? {
        let sealed = Data(try FieldCipher.seal("", key: key, context: Self.contentContext(id)))
        let rows = try await connection.query(
            """
            UPDATE messages SET status = 'streaming', content_ciphertext = \(sealed), provider = NULL, model = NULL, completed_at = NULL
            WHERE id = \(id) AND thread_id = \(threadID) AND user_id = \(userID) AND role = 'assistant'
              AND (status IN ('interrupted', 'failed')
                   OR (status = 'streaming' AND created_at < now() - make_interval(secs => \(Self.abandonedAfterSeconds))))
            RETURNING reply_to
            """,
            logger: logger
        )
        for try await replyTo in rows.decode(UUID?.self) { return replyTo }
        return nil
    }

    func message(_ id: UUID, threadID: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> MessageView? {
        let rows = try await connection.query(
            """
            SELECT id, role, status, content_ciphertext, reply_to, provider, model, created_at
            FROM messages WHERE id = \(id) AND thread_id = \(threadID) AND user_id = \(userID)
            """,
            logger: logger
        )
        for try await row in rows.decode((UUID, String, String, Data, UUID?, String?, String?, Date).self) {
            return try view(row, key: key)
        }
        return nil
    }

    func page(threadID: UUID, order: Order, limit: Int, after cursor: Cursor?, key: SymmetricKey, on connection: PostgresConnection) async throws -> MessagePage {
        let position = cursor?.position
        let rows = try await connection.query(
            order == .newest
                ? """
                  SELECT id, role, status, content_ciphertext, reply_to, provider, model, created_at, seq FROM messages
                  WHERE thread_id = \(threadID) AND (\(position)::bigint IS NULL OR seq < \(position))
                  ORDER BY seq DESC LIMIT \(limit + 1)
                  """
                : """
                  SELECT id, role, status, content_ciphertext, reply_to, provider, model, created_at, seq FROM messages
                  WHERE thread_id = \(threadID) AND (\(position)::bigint IS NULL OR seq > \(position))
                  ORDER BY seq ASC LIMIT \(limit + 1)
                  """,
            logger: logger
        )
        var messages: [MessageView] = []
        var sequence: [Int64] = []
        for try await row in rows.decode((UUID, String, String, Data, UUID?, String?, String?, Date, Int64).self) {
            messages.append(try view((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7), key: key))
            sequence.append(row.8)
        }
        let more = messages.count > limit
        return MessagePage(messages: Array(messages.prefix(limit)), nextCursor: more ? Cursor(position: sequence[limit - 1]).string : nil)
    }

    /// The conversation for the prompt: the most recent finished messages before `before` (or all),
    /// oldest first.
    func recentConversation(threadID: UUID, limit: Int, upTo lastIncluded: UUID?, key: SymmetricKey, on connection: PostgresConnection) async throws -> [ChatMessage] {
        let rows = try await connection.query(
            """
            SELECT id, role, content_ciphertext FROM messages
            WHERE thread_id = \(threadID) AND status IN ('complete', 'interrupted')
              AND (\(lastIncluded)::uuid IS NULL OR seq <= (SELECT seq FROM messages WHERE id = \(lastIncluded)))
            ORDER BY seq DESC LIMIT \(limit)
            """,
            logger: logger
        )
        var conversation: [ChatMessage] = []
        for try await (id, role, sealed) in rows.decode((UUID, String, Data).self) {
            let text = try FieldCipher.open(Array(sealed), key: key, context: Self.contentContext(id))
            guard !text.isEmpty else { continue }
            conversation.append(ChatMessage(role: role == "user" ? .user : .assistant, content: text))
        }
        return conversation.reversed()
    }

    private func view(_ row: (UUID, String, String, Data, UUID?, String?, String?, Date), key: SymmetricKey) throws -> MessageView {
        MessageView(
            id: row.0, role: row.1,
            content: try FieldCipher.open(Array(row.3), key: key, context: Self.contentContext(row.0)),
            status: MessageStatus(rawValue: row.2) ?? .complete,
            replyTo: row.4, provider: row.5, model: row.6, createdAt: row.7
        )
    }
}
