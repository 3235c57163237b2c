import AsyncHTTPClient
import ServiceLifecycle

/// The HTTP client LLM calls go through, owned by the application's lifecycle.
///
/// Not `HTTPClient.shared`: its pool keeps 8 connections per host, and every streamed answer holds one
/// connection to its provider for the whole answer, so the 9th concurrent turn would wait for the 1st to end.
struct ProviderHTTPClient: Service {
    let client: HTTPClient

    init(connectionsPerHost: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        // Hearth bootstraps no tracer, yet the client's default is the global no-op one, for which it still builds
        // every request's span attributes (parsing the URL again): 0.8% of a back-to-back profile.
        configuration.tracing.tracer = nil
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func run() async throws {
        // Nothing to do until shutdown; then close the pool after the server has drained.
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
