import HearthPlatform
import NIOCore
import NIOPosix

/// The server's address, checked before anything else starts. A server that cannot bind fails inside the
/// service group after Postgres and the other services have started, and shutting those down mid-start could
/// hang (`hearth dev` on a taken port waited forever, Ctrl-C included); checked first, a taken port is one clear
/// line and exit status 1. Another process can still take the port in between: then the bind error comes later.
public enum ListenAddress {
    public static func ensureFree(host: String, port: Int) async throws {
        let bound: any Channel
        do {
            bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                // As the server binds: a port left in TIME_WAIT by the last run is free, one being listened on is not.
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
        } catch {
            throw ConfigError("cannot listen on \(host):\(port) (\(error)): stop what is listening there or set HEARTH_PORT / HEARTH_HOST")
        }
        try await bound.close()
    }
}
