import ArgumentParser
import HearthApp
import NIOCore
import NIOPosix

struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "Hearth: the server platform for AI coaching apps.",
        subcommands: [Serve.self, Dev.self, Migrate.self, TenantCommand.self, OperatorCommand.self, KeysCommand.self, JobsCommand.self, EvalCommand.self, TrainCommand.self, DomainsCommand.self,
                      AppStoreCommand.self]
    )
}

@main
enum Entry {
    /// Swift concurrency's jobs run on NIO's event loops instead of a separate thread pool. A chat turn awaits
    /// Postgres and the provider over a dozen times; without this every await crosses between the two pools,
    /// and those thread wake-ups were the largest single cost of a turn (docs/performance.md). Installed on the
    /// main thread before any other task starts, as NIO requires. Blocking work (argon2) runs on
    /// NIOThreadPool, never on an event loop.
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await Hearth.main()
    }
}
