import Foundation
import HearthPlatform
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import LLM
import MockLLM
import NIOCore
import NIOPosix
import Testing

/// Runs `body` where a request's code runs in the server: on an event loop, which then also runs the provider's
/// reading task (``EventLoopTaskExecutor/current``). On Swift's global pool instead, a test shares its two threads
/// with every CPU-bound test of the suite: in CI's first seconds, plain synchronous tests waited six seconds for a
/// thread, and a provider's reading task once waited past its 30 s first-event timeout.
func onAnEventLoop<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    try await EventLoopExecutors().executor(for: MultiThreadedEventLoopGroup.singleton.next())!.run(body)
}

/// A mock's address and the connection pool its test reaches it through. Each test has a pool of its own: a pool
/// shared by the tests could keep a connection to an earlier test's mock (its listener closed, the connection still
/// served) and hand it to a later test whose mock was given the same port.
struct MockEndpoint: Sendable {
    let url: String
    let transport: ProviderTransport

    /// Runs `body` with a pool of its own, shut down after it.
    static func with<T: Sendable>(port: Int, _ body: (MockEndpoint) async throws -> T) async throws -> T {
        let transport = try ProviderTransport(connectionsPerOrigin: 64)
        defer { transport.shutdown() }
        return try await body(MockEndpoint(url: "http://127.0.0.1:\(port)", transport: transport))
    }
}

@Suite struct ServerSentEventDecoderTests {
    @Test func decodesEventsSplitAcrossChunksAndLineEndings() {
        var decoder = ServerSentEventDecoder()
        var events: [ServerSentEventDecoder.Event] = []
        for chunk in ["event: a\r\nda", "ta: one\ndata: two\n", "\n: comment\ndata:three\n\n", "data: tail"] {
            events += decoder.feed(ByteBuffer(string: chunk))
        }
        #expect(events == [.init(event: "a", data: "one\ntwo"), .init(data: "three")])
        #expect(decoder.finish() == .init(data: "tail"))
    }

    /// Ids, a field named without a colon, unknown fields, and a value whose UTF-8 arrives in two reads.
    @Test func readsIdsBareFieldsAndSplitCharacters() {
        var decoder = ServerSentEventDecoder()
        let bytes = Array("id: 7\nretry: 10\ndata\ndata: caf\u{E9} \u{1F600}\n\n".utf8)
        let split = bytes.firstIndex(of: 0xC3)! + 1
        var events = decoder.feed(ByteBuffer(bytes: bytes[..<split]))
        events += decoder.feed(ByteBuffer(bytes: bytes[split...]))
        #expect(events == [.init(id: "7", data: "\ncaf\u{E9} \u{1F600}")])
        #expect(decoder.finish() == nil)
    }
}

@Suite struct OfflineProviderTests {
    @Test func repliesWarmlyDeterministicallyAndReflectsTheUser() async throws {
        let provider = OfflineProvider(pace: .zero)
        let request = CompletionRequest(system: "You are a coach.", messages: [.init(role: .user, content: "I feel stuck at my job and I don't know what to do next.")])
        let first = try await collect(provider.stream(request))
        let second = try await collect(provider.stream(request))
        #expect(first == second)
        let text = first.text
        #expect(text.contains("you feel stuck at your job"))
        #expect(text.hasSuffix("?"))
        #expect(text.filter { $0 == "?" }.count == 1)
        #expect(first.usage == nil) // no tokenizer: the turn estimates and says so
        #expect(provider.kind == "offline")
    }
}

/// The HTTP providers against the mock, over real HTTP on loopback.
@Suite struct HTTPProviderTests {
    func withMock(_ knobs: MockKnobs = .init(responseTokens: 5), _ body: @Sendable (MockLLMControls, MockEndpoint) async throws -> Void) async throws {
        let controls = MockLLMControls(knobs: knobs)
        let app = Application(router: MockLLMServer.buildRouter(controls: controls), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await onAnEventLoop { try await MockEndpoint.with(port: client.port!) { try await body(controls, $0) } }
        }
    }

    /// The timeouts only bound a failure, so they are generous: handlers share the test process's two event loops
    /// with every other test's servers, and a loaded run has kept a first event waiting past five seconds.
    func openAI(_ mock: MockEndpoint, firstEvent: Duration = .seconds(30)) -> OpenAICompatibleProvider {
        OpenAICompatibleProvider(model: "gpt-test", baseURL: mock.url + "/v1", apiKey: "sk-test", transport: mock.transport, firstEventTimeout: firstEvent,
                                 idleTimeout: .seconds(30))
    }

    func anthropic(_ mock: MockEndpoint) -> AnthropicProvider {
        AnthropicProvider(model: "claude-test", baseURL: mock.url, apiKey: "sk-ant", transport: mock.transport, firstEventTimeout: .seconds(30), idleTimeout: .seconds(30))
    }

    static let request = CompletionRequest(system: "Be kind.", messages: [.init(role: .user, content: "Hello there")])

    @Test func openAIStreamsTextAndUsage() async throws {
        try await withMock { _, base in
            let result = try await collect(openAI(base).stream(Self.request))
            #expect(result.text == "token0 token1 token2 token3 token4")
            #expect(result.usage?.1 == 5)
        }
    }

    @Test func anthropicStreamsTextAndUsage() async throws {
        try await withMock { _, base in
            let result = try await collect(anthropic(base).stream(Self.request))
            #expect(result.text == "token0 token1 token2 token3 token4")
            #expect(result.usage?.1 == 5)
            #expect((result.usage?.0 ?? 0) > 0)
        }
    }

    /// A response whose last chunk comes in a later read than its end event still leaves its connection for the
    /// next request: the stream reads the response to its end after answering.
    @Test func aConnectionIsReusedWhenTheResponseEndsAfterItsLastEvent() async throws {
        try await withMock(.init(responseTokens: 3, endDelay: .milliseconds(20))) { controls, base in
            // The next turn comes after the response's end: a request sent during the pause would need a second
            // connection. A connection that is not read to its end never comes back, and the wait fails.
            func connectionReturned() async throws {
                _ = try await waitUntil(timeout: .seconds(60), every: .milliseconds(10)) { base.transport.idleConnections != 0 }
                try #require(base.transport.idleConnections == 1)
            }
            for _ in 0..<3 {
                #expect(try await collect(openAI(base).stream(Self.request)).text == "token0 token1 token2")
                try await connectionReturned()
                #expect(try await collect(anthropic(base).stream(Self.request)).text == "token0 token1 token2")
                try await connectionReturned()
            }
            #expect(controls.requestCount == 6)
            #expect(controls.connectionCount == 1)
        }
    }

    @Test(arguments: [(429, ProviderError.Kind.rateLimited), (500, .unavailable), (503, .unavailable), (400, .rejected), (401, .rejected)])
    func statusesMapToKinds(_ status: Int, _ kind: ProviderError.Kind) async throws {
        try await withMock { controls, base in
            controls.script([.status(status)])
            do {
                _ = try await collect(openAI(base).stream(Self.request))
                Issue.record("expected a failure")
            } catch let error as ProviderError {
                #expect(error.kind == kind)
            }
        }
    }

    @Test func aStallIsATimeout() async throws {
        try await withMock { controls, base in
            controls.script([.stall])
            await #expect(throws: ProviderError(.timeout, "no data within the time limit")) {
                _ = try await collect(openAI(base, firstEvent: .milliseconds(300)).stream(Self.request))
            }
            // The timed-out connection is closed, not left to the provider: the mock's stall (five seconds of
            // keep-alive comments) finds its client gone at its next comment.
            _ = try await waitUntil(timeout: .seconds(4), every: .milliseconds(50)) { controls.stallsLeft != 0 }
            #expect(controls.stallsLeft == 1)
        }
    }

    @Test func deltasThatArriveTogetherTravelAsOne() async throws {
        try await withMock { controls, base in
            controls.knobs = .init(responseTokens: 50) // all 50 tokens in one write
            var received: [String] = []
            for try await event in openAI(base).stream(Self.request) { if case .delta(let text) = event { received.append(text) } }
            #expect(received.joined() == (0..<50).map { "token\($0)" }.joined(separator: " "))
            #expect(received.count < 50)
        }
    }

    @Test func aMalformedChunkAndADisconnectFailAfterPartialText() async throws {
        try await withMock { controls, base in
            controls.script([.malformed(afterTokens: 2), .disconnect(afterTokens: 3)])
            var received: [String] = []
            do {
                for try await event in openAI(base).stream(Self.request) { if case .delta(let text) = event { received.append(text) } }
                Issue.record("expected malformed")
            } catch let error as ProviderError {
                #expect(error.kind == .malformed)
                #expect(received.joined() == "token0 token1")
            }
            received = []
            do {
                for try await event in anthropic(base).stream(Self.request) { if case .delta(let text) = event { received.append(text) } }
                Issue.record("expected a disconnect")
            } catch let error as ProviderError {
                #expect(error.isRetryable)
                #expect(received.joined() == "token0 token1 token2")
            }
        }
    }
}

struct Collected: Equatable {
    var text = ""
    var usage: (Int, Int)?
    static func == (lhs: Collected, rhs: Collected) -> Bool { lhs.text == rhs.text && lhs.usage?.0 == rhs.usage?.0 && lhs.usage?.1 == rhs.usage?.1 }
}

func collect(_ stream: AsyncThrowingStream<CompletionEvent, any Error>) async throws -> Collected {
    var result = Collected()
    for try await event in stream {
        switch event {
        case .delta(let text): result.text += text
        case .usage(let input, let output): result.usage = (input, output)
        }
    }
    return result
}
