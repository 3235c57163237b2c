import Foundation
import Hummingbird
import HummingbirdTesting
import LLM
import MockLLM
import Testing

/// Two mock providers (primary and fallback) over real HTTP; faults scripted per request.
@Suite struct ProviderChainTests {
    /// `primaryWait` bounds the primary's wait for its first event and between events. Only a test of a stall
    /// shortens it: in a full parallel run on two cores a healthy mock's first event can take longer than
    /// a short limit, and the chain would then retry an answer the test meant to fail otherwise. The failure
    /// budget is long for the same reason (a loaded run can spend 3 s on a few requests), except in the test of it.
    func withMocks(primaryWait: Duration = .seconds(30), budget: Duration = .seconds(60), _ body: @Sendable (MockLLMControls, MockLLMControls, ProviderChain) async throws -> Void) async throws {
        let primary = MockLLMControls(knobs: .init(responseTokens: 3))
        let fallback = MockLLMControls(knobs: .init(responseTokens: 3))
        let primaryApp = Application(router: MockLLMServer.buildRouter(controls: primary), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let fallbackApp = Application(router: MockLLMServer.buildRouter(controls: fallback), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await primaryApp.test(.live) { primaryClient in
            try await fallbackApp.test(.live) { fallbackClient in
                var policy = ProviderChain.Policy()
                policy.baseBackoff = .milliseconds(20)
                policy.failureBudget = budget
                let transport = try ProviderTransport(connectionsPerOrigin: 64) // the test's own (MockEndpoint says why)
                defer { transport.shutdown() }
                let chain = ProviderChain(providers: [
                    OpenAICompatibleProvider(model: "primary-model", baseURL: "http://127.0.0.1:\(primaryClient.port!)/v1", apiKey: nil,
                                             transport: transport, firstEventTimeout: primaryWait, idleTimeout: primaryWait),
                    AnthropicProvider(model: "fallback-model", baseURL: "http://127.0.0.1:\(fallbackClient.port!)", apiKey: nil,
                                      transport: transport, firstEventTimeout: .seconds(30), idleTimeout: .seconds(30)),
                ], policy: policy)
                try await onAnEventLoop { try await body(primary, fallback, chain) }
            }
        }
    }

    static let request = CompletionRequest(system: "s", messages: [.init(role: .user, content: "hi")])

    func run(_ chain: ProviderChain) async -> (events: [ProviderChain.Event], failure: (any Error)?) {
        var events: [ProviderChain.Event] = []
        do {
            for try await event in chain.stream(Self.request) { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    @Test func retryableErrorsAreRetriedOnTheSameProvider() async throws {
        try await withMocks { primary, fallback, chain in
            primary.script([.status(503), .status(429)])
            let (events, failure) = await run(chain)
            #expect(failure == nil)
            #expect(events.first == .answering(kind: "openai", model: "primary-model"))
            #expect(primary.requestCount == 3)
            #expect(fallback.requestCount == 0)
        }
    }

    @Test func aRejectedRequestGoesStraightToTheFallback() async throws {
        try await withMocks { primary, fallback, chain in
            primary.script([.status(400)])
            let (events, failure) = await run(chain)
            #expect(failure == nil)
            #expect(events.first == .answering(kind: "anthropic", model: "fallback-model"))
            #expect(primary.requestCount == 1)
            #expect(fallback.requestCount == 1)
        }
    }

    @Test func aStalledPrimaryFallsBack() async throws {
        try await withMocks(primaryWait: .milliseconds(400)) { primary, fallback, chain in
            primary.script([.stall, .stall, .stall])
            let (events, failure) = await run(chain)
            #expect(failure == nil)
            #expect(events.first == .answering(kind: "anthropic", model: "fallback-model"))
            _ = fallback
        }
    }

    @Test func whenEverythingFailsTheChainGivesUpWithEachAttemptsError() async throws {
        try await withMocks { primary, fallback, chain in
            primary.script(Array(repeating: .status(503), count: 10))
            fallback.script(Array(repeating: .status(500), count: 10))
            let (events, failure) = await run(chain)
            #expect(events.isEmpty)
            guard case .unavailable(let errors)? = failure as? ProviderChain.ChainFailure else {
                Issue.record("expected unavailable, got \(String(describing: failure))")
                return
            }
            #expect(errors.count == 6)
            #expect(errors.allSatisfy { $0.kind == .unavailable })
        }
    }

    /// Once the failure budget is spent, a failure ends the chain: no retry, no fallback. (The turn's budget of 3 s is
    /// what keeps "temporarily unavailable" prompt; a spent one is the case a test can reach without timing.) With
    /// no budget at all the first attempt has no share of it either: it ends at once.
    @Test func aSpentBudgetEndsTheChainAtTheNextFailure() async throws {
        try await withMocks(budget: .zero) { primary, fallback, chain in
            primary.script(Array(repeating: .status(503), count: 10))
            let (events, failure) = await run(chain)
            #expect(events.isEmpty)
            #expect(primary.requestCount <= 1)
            #expect(fallback.requestCount == 0)
            guard case .unavailable(let errors)? = failure as? ProviderChain.ChainFailure else {
                Issue.record("expected unavailable, got \(String(describing: failure))")
                return
            }
            #expect(errors.count == 1)
        }
    }

    /// NFR36: a primary that accepts the request and then says nothing gets its share of the budget (half, with a
    /// fallback), not its own 60 s limit, and is then cut over rather than asked again: the healthy fallback answers.
    /// (The mock's stall lasts five seconds, longer than the primary's four; without the share the primary answers
    /// after it.)
    @Test func aSilentPrimaryLeavesTheFallbackItsShareOfTheBudget() async throws {
        try await withMocks(primaryWait: .seconds(60), budget: .seconds(8)) { primary, fallback, chain in
            primary.script([.stall])
            let (events, failure) = await run(chain)
            #expect(failure == nil)
            #expect(events.first == .answering(kind: "anthropic", model: "fallback-model"))
            #expect(primary.requestCount == 1)
            #expect(fallback.requestCount == 1)
        }
    }

    /// With every provider silent the chain gives up within the budget, before either stall ends, so the turn's
    /// friendly answer is not held up by them.
    @Test func everyProviderSilentEndsTheChainWithinTheBudget() async throws {
        try await withMocks(primaryWait: .seconds(60), budget: .seconds(4)) { primary, fallback, chain in
            primary.script([.stall, .stall])
            fallback.script([.stall, .stall])
            let (events, failure) = await run(chain)
            #expect(events.isEmpty)
            guard case .unavailable(let errors)? = failure as? ProviderChain.ChainFailure else {
                Issue.record("expected unavailable, got \(String(describing: failure))")
                return
            }
            #expect(errors.map(\.kind) == [.timeout, .timeout])
        }
    }

    /// A 429's `Retry-After` is waited out before the same provider is asked again (the jittered backoff alone would
    /// ask within milliseconds); one longer than the budget moves on to the fallback at once.
    @Test func aRateLimitsRetryAfterIsHonouredWithinTheBudget() async throws {
        try await withMocks { primary, fallback, chain in
            primary.script([.rateLimited(retryAfterSeconds: 1)])
            let started = ContinuousClock.now
            let (events, failure) = await run(chain)
            #expect(failure == nil)
            #expect(events.first == .answering(kind: "openai", model: "primary-model"))
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(primary.requestCount == 2)
            #expect(fallback.requestCount == 0)
        }
        try await withMocks { primary, fallback, chain in
            primary.script([.rateLimited(retryAfterSeconds: 600)])
            let (events, failure) = await run(chain)
            #expect(failure == nil)
            #expect(events.first == .answering(kind: "anthropic", model: "fallback-model"))
            #expect(primary.requestCount == 1)
        }
    }

    @Test func aFailureAfterTextIsAnInterruptionNotARetry() async throws {
        try await withMocks { primary, fallback, chain in
            primary.script([.disconnect(afterTokens: 2)])
            let (events, failure) = await run(chain)
            #expect(events.first == .answering(kind: "openai", model: "primary-model"))
            #expect(events.dropFirst().map { event -> String in
                if case .delta(let text) = event { return text }
                return "not a delta: \(event)"
            }.joined() == "token0 token1")
            #expect(primary.requestCount == 1)
            #expect(fallback.requestCount == 0)
            guard case .interrupted? = failure as? ProviderChain.ChainFailure else {
                Issue.record("expected interrupted, got \(String(describing: failure))")
                return
            }
        }
    }
}
