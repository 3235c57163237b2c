import Accounts
import Foundation
import HearthPlatform
import Crypto
import Hummingbird
import PostgresNIO

/// What the person sees and controls of their memory (the memory document's MemoryManagementViewModel):
/// facts by category, summaries, insights; edits and deletions; "forget everything" in two steps; export.
public struct MemoryService: Sendable {
    public struct Options: Sendable {
        /// How long after asking to forget everything the confirmation is accepted (a cool-down against a
        /// hasty tap), and for how long after that.
        public var forgetCoolDown: Duration = .seconds(60)
        public var forgetWindow: Duration = .seconds(15 * 60)
        public init() {}
    }

    public struct FactList: ResponseEncodable, Sendable { let facts: [StoredFact] }
    public struct SummaryList: ResponseEncodable, Sendable { let summaries: [StoredSummary] }
    public struct InsightList: ResponseEncodable, Sendable { let insights: [StoredInsight] }
    public struct Deleted: ResponseEncodable, Sendable { let deleted: Int }

    public struct ForgetRequested: ResponseEncodable, Sendable {
        /// Send back to confirm.
        let token: String
        let confirmableAt: Date
        let expiresAt: Date
    }

    public struct Forgotten: ResponseEncodable, Sendable {
        let facts: Int
        let summaries: Int
        let threads: Int
    }

    /// Everything remembered, for the person's own records.
    public struct Export: ResponseEncodable, Sendable {
        let facts: [StoredFact]
        let summaries: [StoredSummary]
        let insights: [StoredInsight]
    }

    let database: Database
    let keys: UserDataKeys
    let transcripts: any SessionTranscripts
    let jobs: JobStore
    let options: Options
    let facts: FactStore
    let summaries: SummaryStore
    let insights: InsightStore
    let forgetRequests: ForgetRequestStore

    public init(database: Database, keyRing: KeyRing, transcripts: any SessionTranscripts, options: Options = .init()) {
        self.database = database
        self.keys = UserDataKeys(keyRing: keyRing, logger: database.logger)
        self.transcripts = transcripts
        self.jobs = JobStore(client: database.client, logger: database.logger)
        self.options = options
        self.facts = FactStore(logger: database.logger)
        self.summaries = SummaryStore(logger: database.logger)
        self.insights = InsightStore(logger: database.logger)
        self.forgetRequests = ForgetRequestStore(logger: database.logger)
    }

    // MARK: - Facts

    func facts(tenant: Tenant, identity: Identity, category: FactCategory?, includeInactive: Bool) async throws -> FactList {
        try await withKey(tenant, identity) { connection, key in
            FactList(facts: try await facts.list(userID: identity.userID, category: category, includeInactive: includeInactive, key: key, on: connection))
        }
    }

    /// A fact the person writes themselves.
    func addFact(tenant: Tenant, identity: Identity, category: FactCategory, text: String) async throws -> StoredFact {
        try await withKey(tenant, identity) { connection, key in
            let id = try await facts.add(category, .recognising(text, category: category), origin: .user, mention: nil, tenantID: tenant.id, userID: identity.userID, key: key, on: connection)
            return try await facts.find(id, userID: identity.userID, key: key, on: connection)!
        }
    }

    /// The person's correction: new words, another category, or paused (inactive: kept, never in prompts).
    func editFact(tenant: Tenant, identity: Identity, id: UUID, category: FactCategory?, text: String?, active: Bool?) async throws -> StoredFact {
        try await withKey(tenant, identity) { connection, key in
            guard let fact = try await facts.find(id, userID: identity.userID, key: key, on: connection) else { throw Self.noFact }
            let category = category ?? fact.category
            let content = text.map { FactContent.recognising($0, category: category, slot: fact.content.slot) } ?? fact.content
            try await facts.edit(id, category: category, content: content, active: active ?? fact.active, key: key, on: connection)
            return try await facts.find(id, userID: identity.userID, key: key, on: connection)!
        }
    }

    func deleteFact(tenant: Tenant, identity: Identity, id: UUID) async throws {
        let deleted = try await database.withTenant(tenant.id) { [self] connection in
            try await facts.delete(id, userID: identity.userID, on: connection)
        }
        guard deleted else { throw Self.noFact }
    }

    func deleteFacts(tenant: Tenant, identity: Identity, category: FactCategory?) async throws -> Deleted {
        Deleted(deleted: try await database.withTenant(tenant.id) { [self] connection in
            try await facts.deleteAll(userID: identity.userID, category: category, on: connection)
        })
    }

    // MARK: - Summaries and insights

    func summaries(tenant: Tenant, identity: Identity, includeArchived: Bool) async throws -> SummaryList {
        try await withKey(tenant, identity) { connection, key in
            SummaryList(summaries: try await summaries.list(userID: identity.userID, includeArchived: includeArchived, key: key, on: connection))
        }
    }

    func deleteSummary(tenant: Tenant, identity: Identity, id: UUID) async throws {
        let deleted = try await database.withTenant(tenant.id) { [self] connection in
            try await summaries.delete(id, userID: identity.userID, on: connection)
        }
        guard deleted else { throw APIError.notFound("No such summary.") }
    }

    func insights(tenant: Tenant, identity: Identity) async throws -> InsightList {
        try await withKey(tenant, identity) { connection, key in
            InsightList(insights: try await insights.list(userID: identity.userID, key: key, on: connection))
        }
    }

    /// Ends the thread's session now, or summarizes it on request: a job writes the summary.
    func summarize(tenant: Tenant, identity: Identity, threadID: UUID, reason: MemoryWriter.Reason) async throws {
        try await withKey(tenant, identity) { connection, key in
            guard try await transcripts.transcript(threadID: threadID, userID: identity.userID, afterSeq: .max, throughSeq: .max, key: key,
                                                         on: connection) != nil else {
                throw APIError.notFound("No such thread.")
            }
            try await jobs.enqueue(try MemoryJobs.summarize(tenantID: tenant.id, userID: identity.userID, threadID: threadID, reason: reason), on: connection)
        }
    }

    // MARK: - Forget everything

    func requestForget(tenant: Tenant, identity: Identity) async throws -> ForgetRequested {
        let token = Secrets.randomToken(byteCount: 24)
        let (confirmableAt, expiresAt) = try await database.withTenant(tenant.id) { [self] connection in
            try await forgetRequests.request(tenantID: tenant.id, userID: identity.userID, token: token, coolDown: options.forgetCoolDown,
                                             window: options.forgetWindow, on: connection)
        }
        return ForgetRequested(token: token, confirmableAt: confirmableAt, expiresAt: expiresAt)
    }

    /// Deletes every fact, summary, insight and conversation in one transaction; the context profile and
    /// settings stay (the memory document's deleteAllMemory).
    func confirmForget(tenant: Tenant, identity: Identity, token: String) async throws -> Forgotten {
        try await database.withTenant(tenant.id) { [self] connection in
            switch try await forgetRequests.consume(userID: identity.userID, token: token, on: connection) {
            case .noRequest:
                throw APIError.notFound("No pending request to forget everything matches this token; ask again.")
            case .coolingDown(let until):
                throw APIError.tooManyRequests("forget_cooling_down", "Confirm after the cool-down.",
                                               retryAfter: max(1, Int(until.timeIntervalSinceNow.rounded(.up))))
            case .confirmable:
                // Summaries first: deleting the threads would take them too, uncounted.
                let summaryCount = try await summaries.deleteAll(userID: identity.userID, on: connection)
                let factCount = try await facts.deleteAll(userID: identity.userID, category: nil, on: connection)
                let threads = try await transcripts.deleteAllThreads(userID: identity.userID, on: connection)
                return Forgotten(facts: factCount, summaries: summaryCount, threads: threads)
            }
        }
    }

    func cancelForget(tenant: Tenant, identity: Identity) async throws {
        try await database.withTenant(tenant.id) { [self] connection in
            try await forgetRequests.cancel(userID: identity.userID, on: connection)
        }
    }

    func exportAll(tenant: Tenant, identity: Identity) async throws -> Export {
        try await withKey(tenant, identity) { connection, key in
            Export(facts: try await facts.list(userID: identity.userID, category: nil, includeInactive: true, key: key, on: connection),
                   summaries: try await summaries.list(userID: identity.userID, includeArchived: true, key: key, on: connection),
                   insights: try await insights.list(userID: identity.userID, key: key, on: connection))
        }
    }

    private func withKey<T: Sendable>(_ tenant: Tenant, _ identity: Identity, _ body: @escaping @Sendable (PostgresConnection, SymmetricKey) async throws -> T) async throws -> T {
        try await keys.withKey(database, tenantID: tenant.id, userID: identity.userID, body)
    }

    static let noFact = APIError.notFound("No such fact.")
}

/// Memory in the user's data export.
extension MemoryService: ExportSection {
    public var name: String { "memory" }

    public func export(tenant: Tenant, identity: Identity) async throws -> any Encodable & Sendable {
        try await exportAll(tenant: tenant, identity: identity)
    }
}
