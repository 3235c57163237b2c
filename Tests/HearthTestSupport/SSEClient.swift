import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import LLM
import MockLLM
import NIOCore
import NIOHTTP1

/// One event as a client sees it.
public struct ReceivedEvent: Sendable, Equatable {
    public let id: Int
    public let event: String
    public let json: [String: any Sendable]

    public static func == (lhs: ReceivedEvent, rhs: ReceivedEvent) -> Bool { lhs.id == rhs.id && lhs.event == rhs.event }

    public var text: String? { json["text"] as? String }
    public subscript(key: String) -> (any Sendable)? { json[key] }
}

/// A real streaming HTTP client for event streams: reads events as they arrive and can hang up early.
public struct SSEClient: Sendable {
    public let port: Int
    public let clientKey: String
    public let token: String

    public init(port: Int, clientKey: String, token: String) {
        self.port = port
        self.clientKey = clientKey
        self.token = token
    }

    /// Sends the request and reads events until the stream ends or `stopAfter` events have arrived
    /// (then it drops the connection, like a phone losing signal).
    public func events(
        _ method: HTTPMethod = .POST, _ path: String, json: [String: any Sendable]? = nil,
        headers: [(String, String)] = [], stopAfter: Int? = nil
    ) async throws -> (status: Int, events: [ReceivedEvent]) {
        let stream = try await open(method, path, json: json, headers: headers)
        var received: [ReceivedEvent] = []
        while let event = try await stream.next() {
            received.append(event)
            if let stopAfter, received.count >= stopAfter { break }
        }
        return (stream.status, received)
    }

    /// Sends the request; its events are then read one at a time, as they arrive.
    public func open(
        _ method: HTTPMethod = .POST, _ path: String, json: [String: any Sendable]? = nil, headers: [(String, String)] = []
    ) async throws -> EventStream {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "Accept", value: "text/event-stream")
        request.headers.add(name: "X-Hearth-Client-Key", value: clientKey)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return EventStream(status: Int(response.status.code), body: response.body.makeAsyncIterator())
    }

    /// A response's events; dropping it hangs up.
    public final class EventStream {
        public let status: Int
        private var body: HTTPClientResponse.Body.AsyncIterator
        private var decoder = ServerSentEventDecoder()
        private var pending: [ReceivedEvent] = []

        init(status: Int, body: HTTPClientResponse.Body.AsyncIterator) {
            self.status = status
            self.body = body
        }

        /// The next event; `nil` at the end of the stream.
        public func next() async throws -> ReceivedEvent? {
            while pending.isEmpty {
                guard let chunk = try await body.next() else { return nil }
                pending = decoder.feed(chunk).map(SSEClient.parse)
            }
            return pending.removeFirst()
        }
    }

    static func parse(_ event: ServerSentEventDecoder.Event) -> ReceivedEvent {
        let json = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: any Sendable] ?? [:]
        return ReceivedEvent(id: event.id.flatMap(Int.init) ?? 0, event: event.event ?? "message", json: json)
    }
}

/// A mock LLM on loopback for the duration of `body`.
public func withMockLLM<T: Sendable>(_ knobs: MockKnobs = .init(responseTokens: 8), _ body: @Sendable (MockLLMControls, Int) async throws -> T) async throws -> T {
    let controls = MockLLMControls(knobs: knobs)
    let app = Application(router: MockLLMServer.buildRouter(controls: controls), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await app.test(.live) { client in try await body(controls, client.port!) }
}
