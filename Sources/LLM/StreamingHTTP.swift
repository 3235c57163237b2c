import AsyncHTTPClient
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

    let client: HTTPClient
    let timeouts: Timeouts

    func stream(
        url: String, headers: [(String, String)], body: Data,
        decode: @escaping @Sendable (ServerSentEventDecoder.Event) throws -> [CompletionEvent]?
    ) -> AsyncThrowingStream<CompletionEvent, any Error> {
        AsyncThrowingStream { continuation in
            let progress = NIOLockedValueBox(Progress(deadline: .now + timeouts.firstEvent))
            // The loop this turn runs on (`any()` prefers the current one): arming and stopping the timer then
            // stays on one thread, where `next()` put half the turns' timers on the other loop, each arm and stop
            // a cross-thread wake-up.
            let watchdog = Watchdog(eventLoop: client.eventLoopGroup.any(), progress: progress)
            let consumer = Task {
                defer { watchdog.stop() }
                do {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.headers.add(name: "Accept", value: "text/event-stream")
                    for (name, value) in headers { request.headers.add(name: name, value: value) }
                    request.body = .bytes(ByteBuffer(bytes: body))
                    let response = try await client.execute(request, timeout: .hours(1))
                    guard response.status == .ok else {
                        let text = (try? await response.body.collect(upTo: 16 * 1024)).map { String(buffer: $0) } ?? ""
                        throw Self.error(status: response.status, body: text)
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
                    var chunks = response.body.makeAsyncIterator()
                    body: while let chunk = try await chunks.next() {
                        // Keep-alive comments keep chunks coming from a stalled upstream: without this check a
                        // timed-out stream would be read forever and its connection never closed.
                        try Task.checkCancellation()
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
                    flush()
                    if !finished, let last = decoder.finish(), let events = try decode(last) {
                        events.forEach { continuation.yield($0) }
                    }
                    continuation.finish()
                    if finished {
                        // The answer ended at its `[DONE]`, but the response's last chunk may come in a later read.
                        // Reading it returns the connection to the pool; leaving now would close it, and a third
                        // of the turns opened a new one (docs/performance-notes.md). The watchdog still bounds it.
                        while try await chunks.next() != nil {}
                    }
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

    static func error(status: HTTPResponseStatus, body: String) -> ProviderError {
        let detail = "HTTP \(status.code)" + (body.isEmpty ? "" : ": " + String(body.prefix(300)))
        switch status.code {
        case 429: return ProviderError(.rateLimited, detail)
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
        default: return ProviderError(.connection, String(describing: error).prefix(200).description)
        }
    }
}

/// What both HTTP providers are configured with: where the API is, the key, and the transport.
struct ProviderEndpoint: Sendable {
    let baseURL: String
    let apiKey: String?
    let http: StreamingHTTP

    init(baseURL: String, apiKey: String?, client: HTTPClient, firstEventTimeout: Duration, idleTimeout: Duration) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.http = StreamingHTTP(client: client, timeouts: .init(firstEvent: firstEventTimeout, idle: idleTimeout))
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
