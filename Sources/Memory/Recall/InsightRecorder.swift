import Crypto
import Foundation
import HearthPlatform

/// Records an insight as the chat turn surfaces it (a rare extra round trip: only on the turn that shows one).
public struct InsightRecorder: Sendable {
    let database: Database
    let store: InsightStore

    public init(database: Database) {
        self.database = database
        self.store = InsightStore(logger: database.logger)
    }

    /// False when an insight of this kind was already drawn from the fact: it is not shown twice.
    public func record(_ insight: Insight, tenantID: UUID, userID: UUID, threadID: UUID, messageID: UUID, key: SymmetricKey) async throws -> Bool {
        try await database.withTenant(tenantID) { [self] connection in
            try await store.record(insight, tenantID: tenantID, userID: userID, threadID: threadID, messageID: messageID, key: key, on: connection)
        }
    }
}
