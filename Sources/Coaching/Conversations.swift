import Accounts
import Crypto
import Foundation
import HearthPlatform
import Logging
import Memory
import Personas
import PostgresNIO

/// Threads and stored messages: everything but generating answers (that is ``ChatTurn``).
public struct Conversations: Sendable {
    let database: Database
    let keys: UserDataKeys
    let threads: ThreadStore
    let messages: MessageStore
    let usage: UsageStore

    public init(database: Database, keyRing: KeyRing) {
        self.database = database
        self.keys = UserDataKeys(keyRing: keyRing, logger: database.logger)
        self.threads = ThreadStore(logger: database.logger)
        self.messages = MessageStore(logger: database.logger)
        self.usage = UsageStore(logger: database.logger)
    }

    func create(tenant: Tenant, identity: Identity, sessionType: SessionType, domain: String?, personaID: UUID? = nil,
                title: String?) async throws -> ThreadView {
        try await withKey(tenant, identity) { connection, key in
            try await threads.create(tenantID: tenant.id, userID: identity.userID, sessionType: sessionType, domain: domain,
                                     personaID: personaID, title: title, key: key, on: connection)
        }
    }

    func list(tenant: Tenant, identity: Identity, limit: Int, cursor: Cursor?) async throws -> ThreadList {
        try await withKey(tenant, identity) { connection, key in
            try await threads.list(userID: identity.userID, limit: limit, before: cursor, key: key, on: connection)
        }
    }

    func thread(tenant: Tenant, identity: Identity, id: UUID) async throws -> ThreadView {
        try await withKey(tenant, identity) { connection, key in
            guard let thread = try await threads.get(id, userID: identity.userID, key: key, on: connection) else { throw Self.noThread }
            return thread
        }
    }

    func rename(tenant: Tenant, identity: Identity, id: UUID, title: String?) async throws -> ThreadView {
        try await withKey(tenant, identity) { connection, key in
            guard try await threads.rename(id, userID: identity.userID, title: title, key: key, on: connection),
                  let thread = try await threads.get(id, userID: identity.userID, key: key, on: connection)
            else { throw Self.noThread }
            return thread
        }
    }

    func delete(tenant: Tenant, identity: Identity, id: UUID) async throws {
        let deleted = try await database.withTenant(tenant.id) { [self] connection in
            try await threads.delete(id, userID: identity.userID, on: connection)
        }
        guard deleted else { throw Self.noThread }
    }

    func deleteAll(tenant: Tenant, identity: Identity) async throws -> Int {
        try await database.withTenant(tenant.id) { [self] connection in
            try await threads.deleteAll(userID: identity.userID, on: connection)
        }
    }

    /// `identity`'s session is checked here, in the page's one statement (decision 0016); the request's rate limit
    /// comes back for the answer's `RateLimit` fields.
    func messages(tenant: Tenant, identity: Identity, threadID: UUID, order: MessageStore.Order, limit: Int,
                  cursor: Cursor?) async throws -> (MessagePage, RateLimit) {
        guard let page = try await messages.page(tenantID: tenant.id, identity: identity, threadID: threadID, order: order, limit: limit,
                                                 after: cursor, keys: keys, client: database.client) else { throw Self.noThread }
        return page
    }

    func message(tenant: Tenant, identity: Identity, threadID: UUID, id: UUID) async throws -> (MessageView, Usage?) {
        try await withKey(tenant, identity) { connection, key in
            guard let message = try await messages.message(id, threadID: threadID, userID: identity.userID, key: key, on: connection) else {
                throw APIError.notFound("No such message.")
            }
            return (message, try await usage.find(messageID: id, userID: identity.userID, on: connection))
        }
    }

    private func withKey<T: Sendable>(_ tenant: Tenant, _ identity: Identity, _ body: @escaping @Sendable (PostgresConnection, SymmetricKey) async throws -> T) async throws -> T {
        try await keys.withKey(database, tenantID: tenant.id, userID: identity.userID, body)
    }

    static let noThread = APIError.notFound("No such thread.")
}

/// Every thread with all its messages, oldest first: the `threads` section of the user's data export.
extension Conversations: ExportSection {
    struct ExportedThread: Encodable, Sendable {
        let thread: ThreadView
        let messages: [MessageView]
    }

    public var name: String { "threads" }

    /// Every thread (through the pages the API serves) and all of its messages, in one transaction so the export is
    /// consistent.
    public func export(tenant: Tenant, identity: Identity) async throws -> any Encodable & Sendable {
        try await withKey(tenant, identity) { connection, key in
            var exported: [ExportedThread] = []
            var cursor: Cursor?
            repeat {
                let list = try await threads.list(userID: identity.userID, limit: 100, before: cursor, key: key, on: connection)
                for thread in list.threads {
                    exported.append(ExportedThread(thread: thread, messages: try await messages.all(of: thread.id, key: key, on: connection)))
                }
                cursor = list.nextCursor.flatMap(Cursor.init)
            } while cursor != nil
            return exported
        }
    }
}

extension Conversations: CompletedSessions {
    /// A session is complete once it has an answer stored in full.
    public func hasCompletedSession(tenantID: UUID, userID: UUID) async throws -> Bool {
        try await database.withTenant(tenantID) { [self] connection in
            try await messages.hasCompleteAnswer(userID: userID, on: connection)
        }
    }
}

/// Memory reads sessions through Coaching, which owns threads and messages.
extension Conversations: SessionTranscripts {
    public func transcript(threadID: UUID, userID: UUID, afterSeq: Int64, throughSeq: Int64, key: SymmetricKey,
                           on connection: PostgresConnection) async throws -> Transcript? {
        guard let domain = try await threads.domain(of: threadID, userID: userID, on: connection) else { return nil }
        let messages = try await messages.transcript(threadID: threadID, after: afterSeq, through: throughSeq, key: key, on: connection)
        return Transcript(domain: domain, messages: messages)
    }

    public func deleteAllThreads(userID: UUID, on connection: PostgresConnection) async throws -> Int {
        try await threads.deleteAll(userID: userID, on: connection)
    }
}

/// Starting a session from a share link (Personas) opens a thread with the persona here.
extension Conversations: PersonaThreads {
    public func startThread(tenant: Tenant, identity: Identity, personaID: UUID, domain: String) async throws -> UUID {
        try await create(tenant: tenant, identity: identity, sessionType: .freeform, domain: domain, personaID: personaID, title: nil).id
    }
}
