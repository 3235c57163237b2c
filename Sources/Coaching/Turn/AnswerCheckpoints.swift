import Crypto
import Foundation
import HearthPlatform
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

/// How long an answer lives on its instance's word, and how often its text is stored while it streams.
public struct AnswerLeases: Sendable {
    /// An answer (and its concurrent-stream slot) not renewed for this long has lost its server: it becomes
    /// retryable, its `…/events` serve what is stored, and the sweep marks it interrupted. `HEARTH_ANSWER_LEASE_SECONDS`.
    public var lifetime: Duration = .seconds(20)
    /// How often the text streamed so far is stored: a crash loses at most this much of it (and a write's time).
    public var checkpointInterval: Duration = .milliseconds(500)

    public init() {}

    /// Renewed four times a lifetime: a live instance misses three renewals in a row before its answers lapse.
    var renewalInterval: Duration { lifetime / 4 }

    var lifetimeSeconds: Int64 { max(1, lifetime.components.seconds) }
}

/// Keeps this instance's answers alive in the database while they stream, with their text so far (issue 39, migration
/// 0042): every ``AnswerLeases/checkpointInterval`` the text of the answers that grew, sealed with their person's
/// key, and every ``AnswerLeases/renewalInterval`` every answer's `alive_until` and stream lease, all in one
/// statement. When the instance dies the renewals stop, and within a lifetime its answers are retryable, with the
/// text it had streamed up to the last checkpoint, and their slots are free.
public final class AnswerCheckpoints: Service, Sendable {
    /// One answer being generated here: the turn appends what it streams, the loop stores it.
    final class Answer: Sendable {
        let tenantID: UUID
        let userID: UUID
        let id: UUID
        let key: SymmetricKey
        private let state = NIOLockedValueBox(State())

        struct State {
            var text = ""
            /// Whether `text` grew since it was last stored.
            var dirty = false
        }

        init(tenantID: UUID, userID: UUID, id: UUID, key: SymmetricKey) {
            self.tenantID = tenantID
            self.userID = userID
            self.id = id
            self.key = key
        }

        /// Text streamed to the person.
        func append(_ delta: String) {
            state.withLockedValue {
                $0.text += delta
                $0.dirty = true
            }
        }

        /// The text to store, if it grew since last asked.
        func takeCheckpoint() -> String? {
            state.withLockedValue { state in
                guard state.dirty else { return nil }
                state.dirty = false
                return state.text
            }
        }

        /// A checkpoint that failed to be written: written at the next tick.
        func markUnsaved() {
            state.withLockedValue { $0.dirty = true }
        }
    }

    let leases: AnswerLeases
    private let client: PostgresClient
    private let logger: Logger
    private let answers = NIOLockedValueBox<[UUID: Answer]>([:])
    /// Answers opened since the last write: renewed at the next tick (their lease has the admission's 20 s).
    private let fresh = NIOLockedValueBox(false)

    init(leases: AnswerLeases, database: Database) {
        self.leases = leases
        self.client = database.client
        self.logger = database.logger
    }

    /// An answer starts streaming here.
    func open(tenantID: UUID, userID: UUID, id: UUID, key: SymmetricKey) -> Answer {
        let answer = Answer(tenantID: tenantID, userID: userID, id: id, key: key)
        answers.withLockedValue { $0[id] = answer }
        fresh.withLockedValue { $0 = true }
        return answer
    }

    /// The answer is stored (or will not be): no more checkpoints.
    func close(_ answer: Answer) {
        _ = answers.withLockedValue { $0.removeValue(forKey: answer.id) }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            var lastRenewal = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: leases.checkpointInterval)
                let renew = ContinuousClock.now - lastRenewal >= leases.renewalInterval || fresh.withLockedValue { $0 }
                if await write(renewingAll: renew), renew { lastRenewal = .now }
            }
        }
        // Stopping: what has streamed is stored (the answers' leases then lapse as a dead instance's would).
        await write(renewingAll: false)
    }

    /// Stores the answers that grew, and renews every answer when `renewingAll`; false when the write failed.
    @discardableResult
    func write(renewingAll: Bool) async -> Bool {
        if renewingAll { fresh.withLockedValue { $0 = false } }
        let current = answers.withLockedValue { Array($0.values) }
        var tenants: [UUID] = [], users: [UUID] = [], ids: [UUID] = [], sealed: [String] = []
        var checkpointed: [Answer] = []
        for answer in current {
            let text = answer.takeCheckpoint()
            guard text != nil || renewingAll else { continue }
            if let text {
                checkpointed.append(answer)
                // Base64: PostgresNIO encodes no array of bytea.
                sealed.append((try? MessageStore.seal(text, id: answer.id, key: answer.key).base64EncodedString()) ?? "")
            } else {
                sealed.append("") // unchanged
            }
            tenants.append(answer.tenantID)
            users.append(answer.userID)
            ids.append(answer.id)
        }
        guard !ids.isEmpty else { return true }
        do {
            try await client.liveRows(
                "SELECT hearth_answers_keep(\(tenants), \(users), \(ids), \(sealed), \(leases.lifetimeSeconds))", logger: logger
            )
            return true
        } catch {
            checkpointed.forEach { $0.markUnsaved() }
            if renewingAll { fresh.withLockedValue { $0 = true } }
            logger.warning("keeping answers alive failed", metadata: ["answers": .stringConvertible(ids.count), "error": .error(error)])
            return false
        }
    }
}
