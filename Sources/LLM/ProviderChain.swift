import Foundation

/// Tries providers in order — the tenant's primary, then its fallback — retrying each on retryable errors
/// with exponential backoff and full jitter (never sooner than a 429's `Retry-After`), but only until the first
/// token: once text has reached the user, a failure is an interrupted answer, not something to silently restart.
///
/// The failure budget (3 s by default, NFR36) bounds the wait for a first token: each provider gets its share of
/// what is left (half to the primary when there is a fallback), whatever its own first-event limit, and a provider
/// that sends nothing within it is cut over to the next rather than retried. So a primary that accepts the request
/// and then says nothing leaves time for a healthy fallback, and with every provider down the chain gives up with
/// ``ChainFailure/unavailable(_:)`` within the budget, for the turn's "temporarily unavailable" answer.
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

    /// The answer, read in the caller's task: the chain has no task of its own, so an event reaches the caller with
    /// one hop fewer. The primary provider is asked at once, so that its request is under way while the caller
    /// sends what it has before the answer.
    public func stream(_ request: CompletionRequest) -> Stream {
        Stream(iterator: Stream.Iterator(chain: self, request: request))
    }

    /// One answer, to be read once.
    public struct Stream: AsyncSequence {
        public typealias Element = Event
        let iterator: Iterator

        public func makeAsyncIterator() -> Iterator {
            iterator
        }

        public struct Iterator: AsyncIteratorProtocol {
            let chain: ProviderChain
            var request: CompletionRequest
            let started = ContinuousClock.now
            var provider = 0
            var attempt = 0
            /// The current attempt's answer. Replacing or dropping it ends that provider's stream.
            var current: AsyncThrowingStream<CompletionEvent, any Error>.AsyncIterator
            var answering = false
            /// The first delta, held while `answering` goes out before it.
            var first: String?
            var failures: [ProviderError] = []
            var done = false

            init(chain: ProviderChain, request: CompletionRequest) {
                self.chain = chain
                self.request = request
                self.request.firstEventDeadline = started + chain.policy.failureBudget / chain.providers.count
                current = chain.providers[0].stream(self.request).makeAsyncIterator()
            }

            public mutating func next() async throws -> Event? {
                if let text = first {
                    first = nil
                    return .delta(text)
                }
                while !done {
                    do {
                        guard let event = try await current.next() else {
                            if !answering { throw ProviderError(.malformed, "the stream ended without any text") }
                            done = true
                            return nil
                        }
                        switch event {
                        case .delta(let text):
                            guard answering else {
                                answering = true
                                first = text
                                let provider = chain.providers[provider]
                                return .answering(kind: provider.kind, model: provider.model)
                            }
                            return .delta(text)
                        case .usage(let input, let output):
                            return .usage(inputTokens: input, outputTokens: output)
                        }
                    } catch {
                        let failure = StreamingHTTP.translate(error)
                        if answering {
                            done = true
                            throw ChainFailure.interrupted(failure)
                        }
                        failures.append(failure)
                        // A failure that retrying cannot mend moves on to the next provider, and so does silence past
                        // this provider's share of the budget: asked again, it would spend the fallback's share too.
                        try await startNextAttempt(retry: failure.isRetryable && failure.kind != .timeout, notBefore: failure.retryAfter)
                    }
                }
                return nil
            }

            /// The next attempt: the same provider after a backoff (`retry`, while it has attempts left and the wait,
            /// at least `notBefore`, fits the budget), else the next provider at once; none within the budget (or the
            /// caller cancelled) ends the chain as unavailable. Each attempt must see its first event within its
            /// provider's share of what is left of the budget.
            mutating func startNextAttempt(retry: Bool, notBefore: Duration? = nil) async throws {
                if retry, attempt + 1 < chain.policy.attemptsPerProvider {
                    attempt += 1
                } else {
                    (provider, attempt) = (provider + 1, 0)
                }
                var elapsed = ContinuousClock.now - started
                if attempt > 0 {
                    let delay = Swift.max(chain.backoff(attempt: attempt), notBefore ?? .zero)
                    if elapsed + delay < chain.policy.failureBudget {
                        try? await Task.sleep(for: delay)
                        elapsed = ContinuousClock.now - started
                    } else {
                        (provider, attempt) = (provider + 1, 0)
                    }
                }
                guard provider < chain.providers.count, elapsed < chain.policy.failureBudget else { try giveUp() }
                if Task.isCancelled {
                    done = true
                    throw CancellationError()
                }
                let left = chain.policy.failureBudget - elapsed
                request.firstEventDeadline = .now + left / (chain.providers.count - provider)
                current = chain.providers[provider].stream(request).makeAsyncIterator()
            }

            mutating func giveUp() throws -> Never {
                done = true
                throw ChainFailure.unavailable(failures)
            }
        }
    }

    /// Full jitter: a random wait between zero and the exponential ceiling.
    func backoff(attempt: Int) -> Duration {
        let ceiling = min(policy.maxBackoff, policy.baseBackoff * (1 << min(attempt - 1, 16)))
        return ceiling * Double.random(in: 0...1)
    }
}
