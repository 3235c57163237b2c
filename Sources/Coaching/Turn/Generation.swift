import Foundation
import HearthPlatform
import LLM
import NIOConcurrencyHelpers

/// One answer being generated. It belongs to the server, not to a connection: clients subscribe to it,
/// may leave and come back (`Last-Event-ID`), and it runs to completion and is stored either way.
actor Generation {
    /// How the turn ended, for JSON clients.
    struct Outcome: Sendable {
        let content: String
        let status: MessageStatus
        let provider: String?
        let model: String?
        let usage: Usage?
        let errorCode: String?
        /// The crisis the message showed, for JSON clients (stream clients had the `crisis` event).
        var crisis: CrisisEvent? = nil
    }

    let threadID: UUID
    let userMessageID: UUID
    let assistantMessageID: UUID
    private var events: [ServerSentEvent] = []
    private var subscribers: [Int: AsyncStream<ServerSentEvent>.Continuation] = [:]
    private var subscriptions = 0
    private(set) var outcome: Outcome?
    private var waiters: [CheckedContinuation<Outcome, Never>] = []

    init(threadID: UUID, userMessageID: UUID, assistantMessageID: UUID) {
        self.threadID = threadID
        self.userMessageID = userMessageID
        self.assistantMessageID = assistantMessageID
    }

    func emit(_ event: String, _ data: some Encodable) {
        emit(event, json: (try? Generation.encoder.encode(data)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
    }

    func emit(_ event: String, _ data: some WrittenEvent) {
        var json = JSONWriter(capacity: data.capacity)
        data.write(to: &json)
        emit(event, json: json.text)
    }

    private func emit(_ event: String, json: String) {
        let frame = ServerSentEvent(id: events.count + 1, event: event, data: json)
        events.append(frame)
        for continuation in subscribers.values { continuation.yield(frame) }
    }

    func finish(_ outcome: Outcome) {
        self.outcome = outcome
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        for waiter in waiters { waiter.resume(returning: outcome) }
        waiters.removeAll()
    }

    /// Every event after `lastEventID` so far, then live ones until the end.
    func subscribe(after lastEventID: Int = 0) -> AsyncStream<ServerSentEvent> {
        let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
        for frame in events where frame.id > lastEventID { continuation.yield(frame) }
        if outcome != nil {
            continuation.finish()
        } else {
            subscriptions += 1
            let id = subscriptions
            subscribers[id] = continuation
            continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        }
        return stream
    }

    func result() async -> Outcome {
        if let outcome { return outcome }
        return await withCheckedContinuation { waiters.append($0) }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

/// An event every turn sends (`start`, `delta`, `done`), written without `JSONEncoder` but as it would write it:
/// keys sorted, as ``Generation/encoder`` sorts them.
protocol WrittenEvent {
    /// Room to reserve for its JSON.
    var capacity: Int { get }
    func write(to json: inout JSONWriter)
}

extension WrittenEvent {
    var capacity: Int { 256 }
}

/// The generations in flight on this instance, by assistant message id.
final class GenerationRegistry: Sendable {
    private let generations = NIOLockedValueBox<[UUID: Generation]>([:])

    func add(_ generation: Generation) {
        generations.withLockedValue { $0[generation.assistantMessageID] = generation }
    }

    func remove(_ id: UUID) {
        _ = generations.withLockedValue { $0.removeValue(forKey: id) }
    }

    func find(_ id: UUID) -> Generation? {
        generations.withLockedValue { $0[id] }
    }
}
