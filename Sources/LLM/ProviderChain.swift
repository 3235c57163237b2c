import Foundation

/// Tries providers in order — the tenant's primary, then its fallback — retrying each on retryable errors
/// with exponential backoff and full jitter, but only until the first token: once text has reached the
/// user, a failure is an interrupted answer, not something to silently restart.
///
/// When every provider has failed, or the failure budget (3 s by default) is spent, it gives up with
/// ``ChainFailure/unavailable(_:)`` so the turn can answer "temporarily unavailable" promptly.
public struct ProviderChain: Sendable {
    public struct Policy: Sendable {
        public var attemptsPerProvider = 3
        public var baseBackoff: Duration = .milliseconds(100)
        public var maxBackoff: Duration = .seconds(1)
        /// Once this much time has passed since the turn started, a failure ends the turn instead of retrying.
        public var failureBudget: Duration = .seconds(3)

        public init() {}
    }

    public enum Event: Sendable, Equatable {
        /// The first token of an answer arrived from this provider (it is the one to label the answer with).
        case answering(kind: String, model: String)
        case delta(String)
        case usage(inputTokens: Int, outputTokens: Int)
    }

    public enum ChainFailure: Error, Sendable, Equatable {
        /// No provider produced an answer. Each attempt's error, in order.
        case unavailable([ProviderError])
        /// The answering provider failed after some text was streamed.
        case interrupted(ProviderError)
    }

    public let providers: [any LLMProvider]
    public let policy: Policy

    public init(providers: [any LLMProvider], policy: Policy = .init()) {
        precondition(!providers.isEmpty, "a provider chain needs at least one provider")
        self.providers = providers
        self.policy = policy
    }

    public var primary: any LLMProvider { providers[0] }

    public func stream(_ request: CompletionRequest) -> AsyncThrowingStream<Event, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                let started = ContinuousClock.now
                var failures: [ProviderError] = []
                for provider in providers {
                    for attempt in 0..<policy.attemptsPerProvider {
                        if attempt > 0 {
                            let delay = backoff(attempt: attempt)
                            guard ContinuousClock.now - started + delay < policy.failureBudget else { break }
                            try? await Task.sleep(for: delay)
                        }
                        if Task.isCancelled { continuation.finish(throwing: CancellationError()); return }
                        var answering = false
                        do {
                            for try await event in provider.stream(request) {
                                switch event {
                                case .delta(let text):
                                    if !answering {
                                        answering = true
                                        continuation.yield(.answering(kind: provider.kind, model: provider.model))
                                    }
                                    continuation.yield(.delta(text))
                                case .usage(let input, let output):
                                    continuation.yield(.usage(inputTokens: input, outputTokens: output))
                                }
                            }
                            if !answering { throw ProviderError(.malformed, "the stream ended without any text") }
                            continuation.finish()
                            return
                        } catch {
                            let failure = StreamingHTTP.translate(error)
                            if answering {
                                continuation.finish(throwing: ChainFailure.interrupted(failure))
                                return
                            }
                            failures.append(failure)
                            if !failure.isRetryable || ContinuousClock.now - started >= policy.failureBudget { break }
                        }
                    }
                    if ContinuousClock.now - started >= policy.failureBudget { break }
                }
                continuation.finish(throwing: ChainFailure.unavailable(failures))
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Full jitter: a random wait between zero and the exponential ceiling.
    func backoff(attempt: Int) -> Duration {
        let ceiling = min(policy.maxBackoff, policy.baseBackoff * (1 << min(attempt - 1, 16)))
        return ceiling * Double.random(in: 0...1)
    }
}
