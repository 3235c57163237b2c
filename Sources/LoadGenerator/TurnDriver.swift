import AsyncHTTPClient
import Foundation
import LLM
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix

/// One kind of simulated user: how it gets ready (an account and a thread, say) and how it takes a turn.
/// The same scenario runs through Hearth and directly against the mock, so the difference is what Hearth adds.
protocol TurnDriver: Sendable {
    associatedtype User: Sendable
    func setUp(user index: Int) async throws -> User
    /// Takes one streamed turn and records its outcome (never throws: a failure is a measurement).
    func turn(_ user: User, recorder: LatencyRecorder) async
}

/// What an event in a stream means to the clock.
enum StreamSignal {
    case firstToken, done, ignore
    case failure(String)
}

/// Sends a streaming request and times it: first token and end, as `classify` reads the events.
struct StreamTimer: Sendable {
    let client: HTTPClient
    /// The whole turn's: AsyncHTTPClient's deadline ends with the response head, and a stream that stops
    /// sending after it would otherwise be waited for forever (and the run with it).
    let timeout: Duration

    /// How a turn ended.
    enum Outcome: Sendable {
        case completed(timeToFirstToken: Duration, total: Duration)
        case failed(String)
    }

    func measure(_ request: HTTPClientRequest, recorder: LatencyRecorder,
                 classify: @escaping @Sendable (ServerSentEventDecoder.Event) -> StreamSignal) async {
        let started = ContinuousClock.now
        recorder.streamOpened()
        defer { recorder.streamClosed() }
        // The stream against the turn's deadline: whichever ends first is the outcome, and the other is cancelled
        // (cancelling the stream's read closes its connection).
        let outcome = await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { await read(request, started: started, classify: classify) }
            group.addTask {
                try? await Task.sleep(until: started + timeout)
                return Task.isCancelled ? nil : .failed("timeout")
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed("timeout")
        }
        switch outcome {
        case .completed(let timeToFirstToken, let total): recorder.completed(timeToFirstToken: timeToFirstToken, total: total)
        case .failed(let kind): recorder.failed(kind)
        }
    }

    private func read(_ request: HTTPClientRequest, started: ContinuousClock.Instant,
                      classify: (ServerSentEventDecoder.Event) -> StreamSignal) async -> Outcome {
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            guard response.status == .ok else {
                _ = try? await response.body.collect(upTo: 1 << 20)
                return .failed("http_\(response.status.code)")
            }
            var decoder = ServerSentEventDecoder()
            var firstToken: Duration?
            var outcome: Outcome?
            for try await chunk in response.body {
                // Read to the end even after `done`, so the connection is reused rather than dropped.
                for event in decoder.feed(chunk) where outcome == nil {
                    switch classify(event) {
                    case .firstToken:
                        if firstToken == nil { firstToken = ContinuousClock.now - started }
                    case .done:
                        let total = ContinuousClock.now - started
                        outcome = .completed(timeToFirstToken: firstToken ?? total, total: total)
                    case .failure(let kind):
                        outcome = .failed(kind)
                    case .ignore:
                        break
                    }
                }
            }
            return outcome ?? .failed("truncated")
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            return .failed("timeout")
        } catch {
            return .failed(Self.kind(of: error))
        }
    }

    static func kind(of error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connect_timeout"
            case .remoteConnectionClosed: return "connection_closed"
            case .readTimeout: return "timeout"
            default: return "transport"
            }
        }
        if error is NIOConnectionError { return "connect" }
        return "transport"
    }
}

extension HTTPClientRequest {
    static func json(_ method: HTTPMethod, _ url: String, body: some Encodable, headers: [(String, String)]) throws -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        return request
    }
}

/// A request that had to succeed (setting up users, seeding data) did not.
public struct SetUpFailed: Error, CustomStringConvertible {
    public let description: String
}

extension HTTPClient {
    /// Sends a JSON request and decodes a 2xx JSON answer.
    func decoded<Answer: Decodable>(_ request: HTTPClientRequest, as: Answer.Type, timeout: Duration) async throws -> Answer {
        let response = try await execute(request, timeout: .init(timeout))
        let body = try await response.body.collect(upTo: 16 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw SetUpFailed(description: "\(request.method.rawValue) \(request.url) answered \(response.status.code): \(String(buffer: body).prefix(300))")
        }
        return try JSONDecoder().decode(Answer.self, from: body)
    }
}
