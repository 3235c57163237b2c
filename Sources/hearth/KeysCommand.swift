import ArgumentParser
import HearthApp
import HearthPlatform
import Logging

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Master key management.", subcommands: [Generate.self, Rotate.self]
    )

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a new master key entry for HEARTH_MASTER_KEY.")
        @Option(help: "Version number of the new key (one higher than the current one when rotating).") var version = 1

        func run() throws {
            print(KeyRing.generateSpecification(version: version))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-wrap all data keys under the newest master key in HEARTH_MASTER_KEY (servers keep running)."
        )

        func run() async throws {
            let config = try Config.loadForCommand()
            let (tenants, users) = try await AdminTasks.rotateKeys(config, logger: Logger(label: "hearth.keys"))
            print("re-wrapped \(tenants) tenant index keys and \(users) user data keys under master key version \(try config.requireKeyRing().current.version)")
        }
    }
}
