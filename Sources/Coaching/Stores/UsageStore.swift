import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// What one turn's provider call used and cost.
public struct Usage: Codable, Sendable, Equatable {
    public let inputTokens: Int
    public let outputTokens: Int
    /// `true` when the provider did not report counts and they were estimated.
    public let estimated: Bool
    public let costMicros: Int64
}

/// Owns `usage_records` and reads the `llm_prices` table.
struct UsageStore: Sendable {
    enum Outcome: String, Sendable { case completed, interrupted, unavailable }

    struct Record: Sendable {
        let tenantID: UUID
        let userID: UUID
        let threadID: UUID
        let messageID: UUID
        let provider: String
        let model: String
        let inputTokens: Int
        let outputTokens: Int
        let estimated: Bool
        let timeToFirstToken: Duration?
        let total: Duration
        let outcome: Outcome
    }

    let logger: Logger

    /// Prices the call from the price row in effect today and inserts it; returns what the client is told.
    func insert(_ record: Record, on connection: PostgresConnection) async throws -> Usage {
        let rows = try await connection.query(
            """
            WITH price AS (
                SELECT input_micros_per_million, output_micros_per_million FROM llm_prices
                WHERE provider = \(record.provider) AND model = \(record.model) AND effective_from <= current_date
                ORDER BY effective_from DESC LIMIT 1
            )
            INSERT INTO usage_records (id, tenant_id, user_id, thread_id, message_id, provider, model, input_tokens, output_tokens,
                                       tokens_estimated, cost_micros, priced, ttft_ms, total_ms, outcome)
            SELECT \(UUID()), \(record.tenantID), \(record.userID), \(record.threadID), \(record.messageID), \(record.provider), \(record.model),
                   \(record.inputTokens), \(record.outputTokens), \(record.estimated),
                   coalesce((SELECT (\(record.inputTokens)::bigint * input_micros_per_million
                                    + \(record.outputTokens)::bigint * output_micros_per_million + 999999) / 1000000 FROM price), 0),
                   EXISTS (SELECT 1 FROM price),
                   \(record.timeToFirstToken.map(Self.milliseconds)), \(Self.milliseconds(record.total)), \(record.outcome.rawValue)
            RETURNING cost_micros
            """,
            logger: logger
        )
        let cost = try await rows.collect().first?.decode(Int64.self) ?? 0
        return Usage(inputTokens: record.inputTokens, outputTokens: record.outputTokens, estimated: record.estimated, costMicros: cost)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

extension UsageStore {
    /// The usage recorded for an answer (the latest, if it was retried).
    func find(messageID: UUID, on connection: PostgresConnection) async throws -> Usage? {
        let rows = try await connection.query(
            """
            SELECT input_tokens, output_tokens, tokens_estimated, cost_micros FROM usage_records
            WHERE message_id = \(messageID) ORDER BY created_at DESC LIMIT 1
            """,
            logger: logger
        )
        for try await (input, output, estimated, cost) in rows.decode((Int, Int, Bool, Int64).self) {
            return Usage(inputTokens: input, outputTokens: output, estimated: estimated, costMicros: cost)
        }
        return nil
    }
}
