import Accounts
import Crypto
import Foundation
import HearthPlatform
import LLM
import Logging
import PostgresNIO

/// Writes tiers 2 and 3, always in a background job, never on the streaming path (ARCHITECTURE.md, step 7).
///
/// Each step reads in one short transaction, calls the summarizer or extractor outside any transaction (a
/// model may take seconds), then writes in a second transaction that re-checks what it read. Jobs run at
/// least once, so both steps are idempotent: a session already summarized is skipped, and a fact counts a
/// session once.
public struct MemoryWriter: Sendable {
    /// Why a thread is being summarized.
    public enum Reason: String, Codable, Sendable {
        /// The user ended the session.
        case ended
        /// No turn for the idle time (30 minutes by default).
        case idle
        /// The user asked for a summary ("summarize this conversation").
        case requested
        /// The open session passed 15 messages: its older part is summarized, the last 10 stay in full.
        case inSession = "in_session"
    }

    public struct Options: Sendable {
        /// A session with no turn for this long ends (its summary is written).
        public var idleAfter: Duration = .seconds(30 * 60)
        public init() {}
    }

    /// Messages an open session may hold before its older part is summarized, and how many stay in full.
    static let inSessionLimit = 15
    static let keptInFull = 10

    let database: Database
    let keys: UserDataKeys
    let transcripts: any SessionTranscripts
    let models: any MemoryModels
    let jobs: JobStore
    let options: Options
    let summaries: SummaryStore
    let facts: FactStore
    let progress: ThreadProgressStore
    let logger: Logger

    public init(database: Database, keyRing: KeyRing, transcripts: any SessionTranscripts, models: any MemoryModels, options: Options = .init()) {
        self.database = database
        self.keys = UserDataKeys(keyRing: keyRing, logger: database.logger)
        self.transcripts = transcripts
        self.models = models
        self.jobs = JobStore(client: database.client, logger: database.logger)
        self.options = options
        self.summaries = SummaryStore(logger: database.logger)
        self.facts = FactStore(logger: database.logger)
        self.progress = ThreadProgressStore(logger: database.logger)
        self.logger = database.logger
    }

    // MARK: - Summaries

    /// What one summary covers.
    struct Plan {
        let kind: StoredSummary.Kind
        let sessionKey: String
        let seen: ThreadProgressStore.Progress
        let transcript: Transcript
    }

    /// `lastAttempt`: the job's last try, when a failing model hands the writing to the offline writer.
    func summarize(tenantID: UUID, userID: UUID, threadID: UUID, reason: Reason, lastAttempt: Bool) async throws {
        let planned = try await keys.withKey(database, tenantID: tenantID, userID: userID) { connection, key -> Plan? in
            try await progress.ensure(tenantID: tenantID, userID: userID, threadID: threadID, on: connection)
            guard let seen = try await progress.load(threadID: threadID, on: connection),
                  let session = try await transcripts.transcript(threadID: threadID, userID: userID, afterSeq: seen.summarizedSeq, throughSeq: .max,
                                                                 key: key, on: connection)
            else { return nil }
            let sessionKey = SessionKey.make(threadID: threadID, summarizedSeq: seen.summarizedSeq)
            switch reason {
            case .inSession:
                let uncovered = session.messages.filter { $0.seq > seen.partialSeq }
                guard uncovered.count > Self.inSessionLimit else { return nil }
                return Plan(kind: .partial, sessionKey: sessionKey, seen: seen,
                            transcript: Transcript(domain: session.domain, messages: Array(uncovered.dropLast(Self.keptInFull))))
            case .idle where seen.idleSeconds < options.idleAfter.seconds:
                return nil // they came back; the sweep will try again once they leave
            case .ended, .idle, .requested:
                guard session.messages.contains(where: { $0.role == .assistant }) else {
                    try await progress.markClosed(threadID: threadID, activitySeen: seen.lastActivityAt, on: connection)
                    return nil
                }
                return Plan(kind: .session, sessionKey: sessionKey, seen: seen, transcript: session)
            }
        }
        guard let plan = planned, let first = plan.transcript.messages.first, let last = plan.transcript.messages.last else { return }

        let summary = try await written("summary", tenantID: tenantID, lastAttempt: lastAttempt,
                                        model: { ModelSummarizer(complete: $0) }, offline: OfflineSummarizer() as any SessionSummarizer) {
            try await $0.summarize(plan.transcript)
        }

        try await keys.withKey(database, tenantID: tenantID, userID: userID) { connection, key in
            // Another run got here first (or the thread is gone): nothing to do.
            guard let now = try await progress.load(threadID: threadID, lock: true, on: connection),
                  now.summarizedSeq == plan.seen.summarizedSeq, plan.kind == .session || now.partialSeq == plan.seen.partialSeq
            else { return }
            let id = try await summaries.insert(summary, .init(
                tenantID: tenantID, userID: userID, threadID: threadID, kind: plan.kind, sessionKey: plan.sessionKey,
                fromSeq: first.seq, throughSeq: last.seq, domain: plan.transcript.domain, startedAt: first.at, endedAt: last.at
            ), key: key, on: connection)
            switch plan.kind {
            case .session:
                try await summaries.deletePartials(threadID: threadID, sessionKey: plan.sessionKey, on: connection)
                try await progress.closeSession(threadID: threadID, through: last.seq, activitySeen: plan.seen.lastActivityAt, on: connection)
            case .partial:
                // The next part waits for 16 new messages, so a long session costs a model call per 8 turns, not per 3.
                try await progress.advancePartial(threadID: threadID, through: last.seq, remaining: 0, on: connection)
            }
            try await jobs.enqueue(try MemoryJobs.extractFacts(tenantID: tenantID, userID: userID, summaryID: id), on: connection)
        }
    }

    // MARK: - Facts

    func extractFacts(tenantID: UUID, userID: UUID, summaryID: UUID, lastAttempt: Bool) async throws {
        let read = try await keys.withKey(database, tenantID: tenantID, userID: userID) { connection, key -> (SummaryStore.Source, Transcript, [StoredFact])? in
            guard let source = try await summaries.source(summaryID, userID: userID, key: key, on: connection),
                  let covered = try await transcripts.transcript(threadID: source.threadID, userID: userID, afterSeq: source.fromSeq - 1,
                                                                 throughSeq: source.throughSeq, key: key, on: connection)
            else { return nil }
            return (source, covered, try await facts.active(userID: userID, key: key, on: connection))
        }
        guard let (source, transcript, known) = read else { return }

        let numbered = known.enumerated().map { FactExtraction.Known(number: $0.offset + 1, category: $0.element.category, content: $0.element.content) }
        let changes = try await written("facts", tenantID: tenantID, lastAttempt: lastAttempt,
                                        model: { ModelFactExtractor(complete: $0) }, offline: OfflineFactExtractor() as any FactExtractor) {
            try await $0.extract(from: transcript, summary: source.summary, known: numbered)
        }

        let mention = FactStore.Mention(sessionKey: source.sessionKey, threadID: source.threadID, domain: source.domain, at: source.endedAt)
        try await keys.withKey(database, tenantID: tenantID, userID: userID) { connection, key in
            for change in changes {
                switch change {
                case .add(let category, let content):
                    try await facts.add(category, content, origin: .extracted, mention: mention, tenantID: tenantID, userID: userID, key: key, on: connection)
                case .repeated(let number):
                    try await facts.repeated(known[number - 1].id, mention: mention, on: connection)
                case .contradicted(let number, let category, let content):
                    let replacement = try await facts.add(category, content, origin: .extracted, mention: mention, tenantID: tenantID,
                                                          userID: userID, key: key, on: connection)
                    try await facts.supersede(known[number - 1].id, by: replacement, on: connection)
                }
            }
        }
        logger.info("memory facts extracted", metadata: ["summary_id": .string(summaryID.uuidString), "changes": .stringConvertible(changes.count)])
    }

    /// `write` done by the tenant's model's writer, or by the offline writer when the tenant runs the offline model.
    /// On a job's last attempt, a model that failed (unreachable, or answering something other than the JSON asked
    /// for) hands the writing to the offline writer: a model that cannot answer in JSON would otherwise leave the
    /// session with no memory at all, its job dead.
    private func written<Writer, Written>(_ what: String, tenantID: UUID, lastAttempt: Bool,
                                          model: (@escaping @Sendable (CompletionRequest) async throws -> String) -> Writer,
                                          offline: Writer, _ write: (Writer) async throws -> Written) async throws -> Written {
        guard let complete = try await models.completion(tenantID: tenantID) else { return try await write(offline) }
        do {
            return try await write(model(complete))
        } catch let error where lastAttempt && !(error is CancellationError) {
            logger.warning("memory written offline: the model failed its last attempt",
                           metadata: ["memory_writing": .string(what), "error": .error(error)])
            return try await write(offline)
        }
    }
}
