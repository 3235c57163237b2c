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

/// Owns `usage_records`. A turn's record is written, priced from `llm_prices`, by ``TurnStore/finish(_:content:status:key:)``
/// in the transaction that stores the answer.
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

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration / .milliseconds(1))
    }
}

extension UsageStore {
    /// The usage recorded for `userID`'s answer (the latest, if it was retried). `message_id` has no index (each turn
    /// would pay for one): by the user, the look-up walks that person's records, newest first, through
    /// `usage_records_tenant_user_created`; by the message alone it read every record of the tenant (EXPLAIN over
    /// 6,000 records of 64 people: 1.68 ms and 5,999 rows filtered out, against 0.21 ms and 93).
    func find(messageID: UUID, userID: UUID, on connection: PostgresConnection) async throws -> Usage? {
        let rows = try await connection.query(
            """
            SELECT input_tokens, output_tokens, tokens_estimated, cost_micros FROM usage_records
            WHERE user_id = \(userID) AND message_id = \(messageID) ORDER BY created_at DESC LIMIT 1
            """,
            logger: logger
        )
        for try await (input, output, estimated, cost) in rows.decode((Int, Int, Bool, Int64).self) {
            return Usage(inputTokens: input, outputTokens: output, estimated: estimated, costMicros: cost)
        }
        return nil
    }
}
