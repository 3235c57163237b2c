import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdTLS
@testable import LLM
import MockLLM
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
import Testing
import X509

/// Hearth's own HTTP/1.1 client for providers: URLs, TLS, the per-origin limit, and connections a server closed.
@Suite struct ProviderTransportTests {
    static let request = CompletionRequest(system: "Be kind.", messages: [.init(role: .user, content: "Hello there")])

    @Test func baseURLsAreTakenApart() throws {
        let openAI = try ProviderURL("https://api.openai.com/v1/")
        #expect(openAI.origin == .init(tls: true, host: "api.openai.com", port: 443))
        #expect(openAI.path == "/v1")
        #expect(openAI.hostHeader == "api.openai.com")
        let local = try ProviderURL("http://127.0.0.1:11434")
        #expect(local.origin == .init(tls: false, host: "127.0.0.1", port: 11434))
        #expect(local.path == "")
        #expect(local.hostHeader == "127.0.0.1:11434")
        let v6 = try ProviderURL("http://[::1]:8000/v1")
        #expect(v6.origin == .init(tls: false, host: "::1", port: 8000))
        #expect(v6.hostHeader == "[::1]:8000")
        #expect(v6.path == "/v1")
        let v6Default = try ProviderURL("https://[2001:db8::1]/")
        #expect(v6Default.origin == .init(tls: true, host: "2001:db8::1", port: 443))
        #expect(v6Default.hostHeader == "[2001:db8::1]")
        #expect(v6Default.path == "")
        for bad in ["ftp://example.com", "https://", "http://host:0", "http://host:99999", "http://host:port", "https://host/v1?key=1",
                    "http://user@host", "http://[::1", "http://[::1]x", "http://:80/v1"] {
            #expect(throws: ProviderError.self, "\(bad)") { try ProviderURL(bad) }
        }
    }

    /// A base URL that does not parse fails its requests as misconfigured, which the chain does not retry.
    @Test func anUnusableBaseURLIsAMisconfiguration() async throws {
        let transport = try ProviderTransport(connectionsPerOrigin: 1)
        defer { transport.shutdown() }
        let provider = OpenAICompatibleProvider(model: "m", baseURL: "localhost:8080/v1", apiKey: nil, transport: transport,
                                                firstEventTimeout: .seconds(1), idleTimeout: .seconds(1))
        await #expect(throws: ProviderError.self) { _ = try await collect(provider.stream(Self.request)) }
        do {
            _ = try await collect(provider.stream(Self.request))
        } catch let error as ProviderError {
            #expect(error.kind == .misconfigured)
            #expect(!error.isRetryable)
        }
    }

    /// The mock over TLS, its certificate made for the test: trusted, the answer streams; with the system's trust
    /// roots, the connection is refused.
    @Test func httpsProvidersAreVerified() async throws {
        let identity = try TestCertificate()
        let controls = MockLLMControls(knobs: .init(responseTokens: 4))
        var serverTLS = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(identity.certificate)],
                                                                 privateKey: .privateKey(identity.key))
        serverTLS.minimumTLSVersion = .tlsv12
        let app = Application(router: MockLLMServer.buildRouter(controls: controls), server: try .tls(tlsConfiguration: serverTLS),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let base = "https://127.0.0.1:\(client.port!)/v1"
            var trusting = ProviderTransport.defaultTLS
            trusting.trustRoots = .certificates([identity.certificate])
            let trusted = try ProviderTransport(connectionsPerOrigin: 4, tls: trusting)
            defer { trusted.shutdown() }
            let answer = try await collect(OpenAICompatibleProvider(model: "m", baseURL: base, apiKey: "sk", transport: trusted,
                                                                    firstEventTimeout: .seconds(30), idleTimeout: .seconds(30)).stream(Self.request))
            #expect(answer.text == "token0 token1 token2 token3")
            #expect(controls.requestCount == 1)

            let untrusting = try ProviderTransport(connectionsPerOrigin: 4)
            defer { untrusting.shutdown() }
            do {
                _ = try await collect(OpenAICompatibleProvider(model: "m", baseURL: base, apiKey: "sk", transport: untrusting,
                                                               firstEventTimeout: .seconds(30), idleTimeout: .seconds(30)).stream(Self.request))
                Issue.record("an unknown certificate was accepted")
            } catch let error as ProviderError {
                #expect(error.kind == .connection)
            }
            #expect(controls.requestCount == 1)
        }
    }

    /// With one connection per origin, a second answer waits for the first's connection and then reuses it.
    @Test func requestsBeyondTheLimitWaitForAConnection() async throws {
        let controls = MockLLMControls(knobs: .init(tokensPerSecond: 40, responseTokens: 4))
        let app = Application(router: MockLLMServer.buildRouter(controls: controls), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let one = try ProviderTransport(connectionsPerOrigin: 1)
            defer { one.shutdown() }
            let provider = OpenAICompatibleProvider(model: "m", baseURL: "http://127.0.0.1:\(client.port!)/v1", apiKey: nil, transport: one,
                                                    firstEventTimeout: .seconds(30), idleTimeout: .seconds(30))
            async let first = collect(provider.stream(Self.request))
            async let second = collect(provider.stream(Self.request))
            let answers = try await [first, second]
            #expect(answers.map(\.text) == ["token0 token1 token2 token3", "token0 token1 token2 token3"])
            #expect(controls.requestCount == 2)
            #expect(controls.connectionCount == 1)
        }
    }

    /// A kept connection the server then closes without answering (an idle timeout racing the next request) is
    /// replaced by a new one, and the request is answered.
    @Test func aKeptConnectionTheServerDropsIsReplaced() async throws {
        let server = try await OneAnswerPerConnectionServer.start()
        defer { server.stop() }
        let transport = try ProviderTransport(connectionsPerOrigin: 4)
        defer { transport.shutdown() }
        let provider = OpenAICompatibleProvider(model: "m", baseURL: "http://127.0.0.1:\(server.port)/v1", apiKey: nil, transport: transport,
                                                firstEventTimeout: .seconds(30), idleTimeout: .seconds(30))
        try await onAnEventLoop {
            for _ in 0..<3 {
                let answer = try await collect(provider.stream(Self.request))
                #expect(answer.text == "Hi there")
            }
        }
        #expect(server.connections.withLockedValue { $0 } == 3)
    }
}

/// A self-signed certificate for 127.0.0.1, made per run.
struct TestCertificate {
    let certificate: NIOSSLCertificate
    let key: NIOSSLPrivateKey

    init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Hearth test provider") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: name, subject: name,
            extensions: try Certificate.Extensions {
                // Its own root: BoringSSL takes a self-signed certificate as a trust anchor only as a CA.
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                KeyUsage(digitalSignature: true, keyCertSign: true)
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        self.certificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        self.key = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }
}

/// An OpenAI-style server that answers the first request on each connection, keeps the connection open, and
/// closes it without a word when a second request comes on it.
final class OneAnswerPerConnectionServer: Sendable {
    let channel: any Channel
    let connections: NIOLockedValueBox<Int>
    var port: Int { channel.localAddress!.port! }

    private init(channel: any Channel, connections: NIOLockedValueBox<Int>) {
        self.channel = channel
        self.connections = connections
    }

    static func start() async throws -> OneAnswerPerConnectionServer {
        let connections = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                connections.withLockedValue { $0 += 1 }
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(Answerer())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return OneAnswerPerConnectionServer(channel: channel, connections: connections)
    }

    func stop() {
        channel.close(promise: nil)
    }

    final class Answerer: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        var requests = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            requests += 1
            guard requests == 1 else {
                context.close(promise: nil)
                return
            }
            let body = """
            data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[{"delta":{"content":" there"}}]}\n\n\
            data: {"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\ndata: [DONE]\n\n
            """
            let head = HTTPResponseHead(version: .http1_1, status: .ok,
                                        headers: ["Content-Type": "text/event-stream", "Content-Length": String(body.utf8.count)])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
