import AsyncHTTPClient
import Foundation

/// The streamed-turn scenario: optionally straight against the mock first, then through Hearth with the
/// same users and bounds, so one run reports what Hearth adds on top of the model.
public struct ChatBenchmark: Sendable {
    public var hearth: LoadTarget
    public var clientKey: String
    /// The mock's OpenAI base URL (…/v1), for the direct run; nil skips it.
    public var direct: LoadTarget?
    public var shape: LoadShape
    public var message = "I keep putting off the hard conversation with my manager about my workload. How do I start?"
    public var timeout: Duration = .seconds(120)

    public init(hearth: LoadTarget, clientKey: String, direct: LoadTarget?, shape: LoadShape) {
        self.hearth = hearth
        self.clientKey = clientKey
        self.direct = direct
        self.shape = shape
    }

    public func run() async throws -> ChatReport {
        try await HTTPClient.withLoadClient(connections: shape.users) { try await run(with: $0) }
    }

    private func run(with client: HTTPClient) async throws -> ChatReport {
        var directPhase: ChatReport.Phase?
        if let direct {
            let recorder = LatencyRecorder()
            let elapsed = try await ScenarioRunner.run(
                DirectDriver(client: client, target: direct, message: message, timeout: timeout), shape: shape, recorder: recorder
            )
            directPhase = .init(measured: recorder.snapshot, elapsed: elapsed)
        }

        let server = ServerProcess(client: client, target: hearth)
        let cpuAtStart = Shared<Double?>(nil)
        let peakMemory = Shared<Int?>(nil)
        let recorder = LatencyRecorder()
        let elapsed = try await ScenarioRunner.run(
            HearthDriver(client: client, target: hearth, clientKey: clientKey, message: message, timeout: timeout),
            shape: shape, recorder: recorder
        ) {
            // Starts once every user is set up, so account creation is not charged to the turns.
            let cpu = await server.read().cpuSeconds
            cpuAtStart.update { $0 = cpu }
            await server.samplePeakMemory(every: .milliseconds(500), into: peakMemory)
        }
        let end = await server.read()
        let cpu = cpuAtStart.value.flatMap { start in end.cpuSeconds.map { $0 - start } }
        let peak = peakMemory.value.map { max($0, end.residentBytes ?? 0) } ?? end.residentBytes
        return ChatReport(shape: shape, hearth: .init(measured: recorder.snapshot, elapsed: elapsed), direct: directPhase,
                          serverCPUSeconds: cpu, peakResidentBytes: peak)
    }
}

extension HTTPClient {
    /// Runs `body` with a client that keeps one connection per simulated user open, as phones would.
    static func withLoadClient<Result: Sendable>(connections: Int, _ body: (HTTPClient) async throws -> Result) async throws -> Result {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: max(8, connections + 8))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
