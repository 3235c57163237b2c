import Foundation
import HearthPlatform
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The transport both HTTP providers share: POST a JSON body, check the status, decode the
/// `text/event-stream` answer, and enforce two timeouts — until the first event, and between events
/// afterwards (a stalled stream is a failure, not a wait forever).
struct StreamingHTTP: Sendable {
    struct Timeouts: Sendable {
        var firstEvent: Duration
        var idle: Duration
    }

    let transport: ProviderTransport
    let timeouts: Timeouts

    /// POSTs `body` to `path` under `base`. The first event must arrive within `timeouts.firstEvent`, and by
    /// `firstEventBy` when that is sooner (the chain's share of its failure budget).
    func stream(
        base: Result<ProviderURL, ProviderError>, path: String, headers: [(String, String)], body: Data,
        firstEventBy: ContinuousClock.Instant?,
        decode: @escaping @Sendable (ServerSentEventDecoder.Event) throws -> [CompletionEvent]?
    ) -> AsyncThrowingStream<CompletionEvent, any Error> {
        AsyncThrowingStream { continuation in
            let ownLimit = ContinuousClock.now + timeouts.firstEvent
            let progress = NIOLockedValueBox(Progress(deadline: firstEventBy.map { min($0, ownLimit) } ?? ownLimit))
            // The loop this turn runs on (`any()` prefers the current one): arming and stopping the timer then
            // stays on one thread, where `next()` put half the turns' timers on the other loop, each arm and stop
            // a cross-thread wake-up.
            let watchdog = Watchdog(eventLoop: transport.group.any(), progress: progress)
            // On the caller's event loop, where the provider connection is picked (EventLoopExecutors).
            let consumer = Task(executorPreference: EventLoopTaskExecutor.current) {
                defer { watchdog.stop() }
                do {
                    let base = try base.get()
                    var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: base.path + path)
                    head.headers.reserveCapacity(6 + headers.count)
                    head.headers.add(name: "Host", value: base.hostHeader)
                    head.headers.add(name: "Content-Type", value: "application/json")
                    head.headers.add(name: "Accept", value: "text/event-stream")
                    head.headers.add(name: "Content-Length", value: String(body.count))
                    for (name, value) in headers { head.headers.add(name: name, value: value) }
                    let (connection, first) = try await transport.send(head, body: ByteBuffer(bytes: body), to: base.origin)
                    var received = first
                    let response = received.head!
                    // Kept for the next request only if its response is read to the end and the server keeps it open.
                    var reusable = false
                    defer { transport.release(connection, to: base.origin, reusable: reusable && response.isKeepAlive) }
                    guard response.status == .ok else {
                        var text = received.body.map { String(buffer: $0) } ?? ""
                        while !received.ended, text.utf8.count < 16 * 1024, let more = try? await connection.receive() {
                            received = more
                            if let body = received.body { text += String(buffer: body) }
                        }
                        reusable = received.ended
                        throw Self.error(status: response.status, body: text, retryAfter: response.headers.first(name: "Retry-After"))
                    }
                    var decoder = ServerSentEventDecoder()
                    var finished = false
                    // Deltas that arrive in one network read travel on as one delta: every event costs a hop
                    // through each stream layer up to the client, and a fast upstream sends many per read.
                    var text = ""
                    func flush() {
                        guard !text.isEmpty else { return }
                        progress.withLockedValue { $0.sawEvent(idle: timeouts.idle) }
                        continuation.yield(.delta(text))
                        text = ""
                    }
                    body: while true {
                        if let chunk = received.body {
                            for event in decoder.feed(chunk) {
                                let decoded: [CompletionEvent]?
                                do {
                                    decoded = try decode(event)
                                } catch {
                                    flush() // the text before a broken event was received: it is the partial answer
                                    throw error
                                }
                                guard let events = decoded else { finished = true; break body }
                                for item in events {
                                    if case .delta(let piece) = item {
                                        text += piece
                                    } else {
                                        flush()
                                        continuation.yield(item)
                                    }
                                }
                            }
                            flush()
                        }
                        if received.ended { break }
                        // Keep-alive comments keep data coming from a stalled upstream: without this check a
                        // timed-out stream would be read forever and its connection never closed.
                        try Task.checkCancellation()
                        received = try await connection.receive()
                    }
                    flush()
                    if !finished, let last = decoder.finish(), let events = try decode(last) {
                        events.forEach { continuation.yield($0) }
                    }
                    continuation.finish()
                    // The answer may end at its `[DONE]` before the response's last chunk, which can come in a later
                    // read. Reading it keeps the connection for the next request; leaving now would close it, and a
                    // third of the turns opened a new one (docs/performance-notes.md). The watchdog still bounds it.
                    while !received.ended { received = try await connection.receive() }
                    reusable = true
                } catch {
                    let timedOut = progress.withLockedValue { $0.timedOut }
                    continuation.finish(throwing: timedOut ? ProviderError(.timeout, "no data within the time limit") : Self.translate(error))
                }
            }
            watchdog.arm(cancelling: consumer)
            continuation.onTermination = { termination in
                // A stream the consumer finished may still be reading its response's end; it stops the watchdog itself.
                if case .cancelled = termination { consumer.cancel() }
            }
        }
    }

    /// Cancels the consumer when the current deadline passes without progress. A timer on an event loop rather
    /// than a sleeping task: Swift's delayed jobs go through Dispatch's timer thread, and that cost about a tenth
    /// of the server's CPU per turn (docs/performance.md).
    final class Watchdog: Sendable {
        let eventLoop: any EventLoop
        let progress: NIOLockedValueBox<Progress>
        private struct Timer {
            var pending: Scheduled<Void>?
            var stopped = false
        }
        private let timer = NIOLockedValueBox(Timer())

        init(eventLoop: any EventLoop, progress: NIOLockedValueBox<Progress>) {
            self.eventLoop = eventLoop
            self.progress = progress
        }

        /// Watches `consumer` until ``stop()``.
        func arm(cancelling consumer: Task<Void, Never>) {
            let deadline = progress.withLockedValue { $0.deadline }
            let now = ContinuousClock.now
            guard now < deadline else {
                progress.withLockedValue { $0.timedOut = true }
                consumer.cancel()
                return
            }
            let wait = TimeAmount(now.duration(to: deadline))
            timer.withLockedValue { timer in
                guard !timer.stopped else { return }
                timer.pending = eventLoop.scheduleTask(in: wait) { self.arm(cancelling: consumer) }
            }
        }

        func stop() {
            timer.withLockedValue { timer in
                timer.pending?.cancel()
                timer.stopped = true
            }
        }
    }

    struct Progress: Sendable {
        var deadline: ContinuousClock.Instant
        var timedOut = false

        mutating func sawEvent(idle: Duration) { deadline = .now + idle }
    }

    static func error(status: HTTPResponseStatus, body: String, retryAfter: String?) -> ProviderError {
        let detail = "HTTP \(status.code)" + (body.isEmpty ? "" : ": " + String(body.prefix(300)))
        switch status.code {
        // Retry-After in seconds (an HTTP date is not honoured: providers send seconds).
        case 429: return ProviderError(.rateLimited, detail, retryAfter: retryAfter.flatMap(Double.init).flatMap { $0 >= 0 && $0 < 86_400 ? .seconds($0) : nil })
        case 408: return ProviderError(.timeout, detail)
        case 500...599: return ProviderError(.unavailable, detail)
        default: return ProviderError(.rejected, detail)
        }
    }

    static func translate(_ error: any Error) -> ProviderError {
        switch error {
        case let error as ProviderError: return error
        case is JSONFields.Malformed: return ProviderError(.malformed, "unreadable stream data")
        case is CancellationError: return ProviderError(.connection, "cancelled")
        case is ResponseReader.Closed: return ProviderError(.connection, "the provider closed the connection")
        default: return ProviderError(.connection, String(describing: error).prefix(200).description)
        }
    }
}

/// What both HTTP providers are configured with: where the API is, the key, and the transport.
struct ProviderEndpoint: Sendable {
    /// A base URL that does not parse fails each request as misconfigured (the chain then falls back).
    let base: Result<ProviderURL, ProviderError>
    let apiKey: String?
    let http: StreamingHTTP

    init(baseURL: String, apiKey: String?, transport: ProviderTransport, firstEventTimeout: Duration, idleTimeout: Duration) {
        self.base = Result { try ProviderURL(baseURL) }.mapError { $0 as? ProviderError ?? ProviderError(.misconfigured, "invalid base URL") }
        self.apiKey = apiKey
        self.http = StreamingHTTP(transport: transport, timeouts: .init(firstEvent: firstEventTimeout, idle: idleTimeout))
    }

    func stream(path: String, headers: [(String, String)], body: Data, firstEventBy deadline: ContinuousClock.Instant?,
                decode: @escaping @Sendable (ServerSentEventDecoder.Event) throws -> [CompletionEvent]?) -> AsyncThrowingStream<CompletionEvent, any Error> {
        http.stream(base: base, path: path, headers: headers, body: body, firstEventBy: deadline, decode: decode)
    }
}

/// Where an API key comes from: `env:NAME` or `file:/path`. Keys are never stored in the database or
/// logged; only this reference is.
public struct SecretReference: Sendable, Equatable, CustomStringConvertible {
    public let reference: String

    public init(_ reference: String) throws {
        guard reference.hasPrefix("env:") || reference.hasPrefix("file:"), reference.count > 5 else {
            throw ProviderError(.misconfigured, "a key reference must be env:NAME or file:/path")
        }
        self.reference = reference
    }

    /// Read on every call (each turn), so a rotated key is picked up without a restart.
    public func resolve() throws -> String {
        if reference.hasPrefix("env:") {
            let name = String(reference.dropFirst(4))
            // getenv, not ProcessInfo's environment: that copies the whole environment into a dictionary each time.
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else {
                throw ProviderError(.misconfigured, "environment variable \(name) is not set")
            }
            return value
        }
        let path = String(reference.dropFirst(5))
        guard let value = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              !value.isEmpty else {
            throw ProviderError(.misconfigured, "secret file \(path) is missing or empty")
        }
        return value
    }

    public var description: String { reference }
}
