import ArgumentParser
import HearthApp

@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "Hearth: the server platform for AI coaching apps.",
        subcommands: [Serve.self, Dev.self, Migrate.self, TenantCommand.self, OperatorCommand.self, KeysCommand.self]
    )
}
