import ArgumentParser
import Hummingbird
import MockLLM

@main
struct MockLLMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-mock-llm",
        abstract: "A mock LLM server speaking OpenAI and Anthropic streaming APIs, for load and integration tests.",
        discussion: "Per request, X-Mock-Tokens, X-Mock-TTFT-Ms, X-Mock-TPS, X-Mock-End-Delay-Ms and X-Mock-Fault (429, 429:N with Retry-After N, 500, 503, stall, disconnect:N, malformed:N) override the defaults."
    )

    @Option(help: "Address to listen on (loopback by default).") var host = "127.0.0.1"
    @Option var port = 9090
    @Option(help: "Milliseconds before the first token.") var ttftMs = 0
    @Option(help: "Tokens per second (0: all at once).") var tokensPerSecond: Double = 0
    @Option(help: "Tokens per answer.") var tokens = 50

    func validate() throws {
        guard MockKnobs.tokens.contains(tokens) else { throw ValidationError("--tokens must be from 0 to \(MockKnobs.tokens.upperBound).") }
        guard MockKnobs.milliseconds.contains(ttftMs) else { throw ValidationError("--ttft-ms must be from 0 to \(MockKnobs.milliseconds.upperBound).") }
        guard MockKnobs.isValid(tokensPerSecond: tokensPerSecond) else {
            throw ValidationError("--tokens-per-second must be 0 (all at once) or from \(MockKnobs.tokensPerSecond.lowerBound) to \(Int(MockKnobs.tokensPerSecond.upperBound)).")
        }
    }

    func run() async throws {
        let controls = MockLLMControls(knobs: .init(timeToFirstToken: .milliseconds(ttftMs), tokensPerSecond: tokensPerSecond, responseTokens: tokens))
        let app = MockLLMServer.buildApplication(controls: controls, host: host, port: port) { port in
            print("hearth-mock-llm listening on http://\(host):\(port) (OpenAI: /v1/chat/completions, Anthropic: /v1/messages)")
        }
        try await app.runService()
    }
}
