import Foundation
import PostgresNIO

/// The chat turn's statements on every send, as named prepared statements: each connection parses and plans
/// them once instead of on every call (their parse and bind took 0.18 ms of each send's statement and 0.15 ms of
/// each answer's, `log_min_duration_statement`, docs/performance-notes.md). Their parameter types are given, so
/// a first call with NULLs prepares them as well as any other.
enum TurnStatements {
    /// `hearth_turn_begin` (migration 0036): rows in ``ContextRows/Columns``.
    struct Begin: PostgresPreparedStatement {
        static let name = "hearth_turn_begin"
        static let sql = "SELECT * FROM hearth_turn_begin($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .uuid, .uuid, .text, .uuid, .bytea, .uuid, .bytea, .text, .textArray, .textArray, .int8,
        ]
        typealias Row = ContextRows.Columns

        let tenantID: UUID, userID: UUID, threadID: UUID, session: UUID, idempotencyKey: String?
        let question: UUID, questionSealed: Data, answer: UUID, answerSealed: Data
        let crisis: String?, signals: [String], locales: [String], supportSeconds: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 13)
            bindings.append(tenantID)
            bindings.append(userID)
            bindings.append(threadID)
            bindings.append(session)
            bindings.append(idempotencyKey)
            bindings.append(question)
            try bindings.append(questionSealed)
            bindings.append(answer)
            try bindings.append(answerSealed)
            bindings.append(crisis)
            bindings.append(signals)
            bindings.append(locales)
            bindings.append(supportSeconds)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try ContextRows.columns(of: row)
        }
    }

    /// `hearth_turn_send_context` (migration 0036): a send's context, read beside its `Begin`.
    struct SendContext: PostgresPreparedStatement {
        static let name = "hearth_turn_send_context"
        static let sql = "SELECT * FROM hearth_turn_send_context($1, $2, $3, $4, $5)"
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .uuid, .uuid, .uuid, .int8]
        typealias Row = ContextRows.Columns

        let tenantID: UUID, userID: UUID, threadID: UUID, question: UUID, historyLimit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(tenantID)
            bindings.append(userID)
            bindings.append(threadID)
            bindings.append(question)
            bindings.append(historyLimit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try ContextRows.columns(of: row)
        }
    }

    /// `hearth_turn_finish` (migration 0030): the answer's cost in micro-dollars.
    struct Finish: PostgresPreparedStatement {
        static let name = "hearth_turn_finish"
        static let sql = "SELECT hearth_turn_finish($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        static let bindingDataTypes: [PostgresDataType] = [
            .uuid, .uuid, .uuid, .uuid, .bytea, .text, .text, .text, .int8, .int8, .bool, .int8, .int8, .text, .text,
        ]
        typealias Row = Int64

        let record: UsageStore.Record
        let sealed: Data
        let status: String
        let domain: String?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 15)
            bindings.append(record.tenantID)
            bindings.append(record.userID)
            bindings.append(record.threadID)
            bindings.append(record.messageID)
            try bindings.append(sealed)
            bindings.append(status)
            bindings.append(record.provider)
            bindings.append(record.model)
            bindings.append(record.inputTokens)
            bindings.append(record.outputTokens)
            bindings.append(record.estimated)
            bindings.append(record.timeToFirstToken.map(UsageStore.milliseconds))
            bindings.append(UsageStore.milliseconds(record.total))
            bindings.append(record.outcome.rawValue)
            bindings.append(domain)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Int64.self)
        }
    }
}
