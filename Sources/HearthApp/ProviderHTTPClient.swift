import LLM
import ServiceLifecycle

/// The transport LLM calls go through, owned by the application's lifecycle: its idle connections are closed
/// after the server has drained.
struct ProviderHTTPClient: Service {
    let transport: ProviderTransport

    init(connectionsPerHost: Int) throws {
        transport = try ProviderTransport(connectionsPerOrigin: connectionsPerHost)
    }

    func run() async throws {
        try? await gracefulShutdown()
        transport.shutdown()
    }
}
