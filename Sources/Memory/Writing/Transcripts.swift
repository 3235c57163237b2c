import Crypto
import Foundation
import LLM
import PostgresNIO

/// A thread's stored messages as Memory reads them to summarize.
public struct Transcript: Sendable {
    public struct Message: Sendable {
        public let seq: Int64
        public let role: ChatMessage.Role
        public let content: String
        public let at: Date

        public init(seq: Int64, role: ChatMessage.Role, content: String, at: Date) {
            self.seq = seq
            self.role = role
            self.content = content
            self.at = at
        }
    }

    /// The thread's coaching domain, if it has one.
    public let domain: String?
    /// Complete messages, oldest first.
    public let messages: [Message]

    public init(domain: String?, messages: [Message]) {
        self.domain = domain
        self.messages = messages
    }

    var userText: [String] { messages.filter { $0.role == .user }.map(\.content) }
}

/// Threads and their messages, answered by the feature that owns them (Coaching), so Memory never reads its
/// tables. Each call runs on the caller's connection, inside its tenant-scoped transaction.
public protocol SessionTranscripts: Sendable {
    /// The thread's complete messages with `afterSeq < seq <= throughSeq`; `nil` when the user has no such thread.
    func transcript(threadID: UUID, userID: UUID, afterSeq: Int64, throughSeq: Int64, key: SymmetricKey,
                    on connection: PostgresConnection) async throws -> Transcript?
    /// Deletes every thread of the user ("forget everything"); returns how many.
    func deleteAllThreads(userID: UUID, on connection: PostgresConnection) async throws -> Int
}

/// The tenant's model for memory work (summaries and fact extraction), from the feature that owns provider
/// settings (Coaching).
public protocol MemoryModels: Sendable {
    /// Returns a function giving the tenant model's whole answer to a request; `nil` when the tenant runs on
    /// the offline model, which Memory replaces with its deterministic summarizer and extractor.
    func completion(tenantID: UUID) async throws -> (@Sendable (CompletionRequest) async throws -> String)?
}
