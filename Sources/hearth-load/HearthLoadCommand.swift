import ArgumentParser
import Foundation
import LoadGenerator

@main
struct HearthLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-load",
        abstract: "Load generator for Hearth: simulated app users streaming coaching turns, with HDR latency percentiles.",
        discussion: "The last line of every report is key=value pairs, for scripts (scripts/bench reads it).",
        subcommands: [Chat.self, History.self]
    )
}

struct TargetOptions: ParsableArguments {
    @Option(help: "Hearth's base URL.") var url = "http://127.0.0.1:8080"
    @Option(help: "The tenant's client key (or HEARTH_LOAD_CLIENT_KEY).") var clientKey: String?
    @Flag(help: "Allow a target that is not a loopback address.") var allowRemote = false

    func hearth() throws -> LoadTarget { try LoadTarget(url, allowRemote: allowRemote) }

    func key() throws -> String {
        guard let key = clientKey ?? ProcessInfo.processInfo.environment["HEARTH_LOAD_CLIENT_KEY"], !key.isEmpty else {
            throw ValidationError("Pass --client-key (or set HEARTH_LOAD_CLIENT_KEY); `hearth dev` prints the demo tenant's.")
        }
        return key
    }
}

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "N users each open an account and a thread, then stream turns with think time.",
        discussion: "With --direct, the same users and bounds first run straight against the mock, and the report shows the server-added latency."
    )

    @OptionGroup var target: TargetOptions
    @Option(help: "Concurrent simulated users.") var users = 1
    @Option(help: "Stop after this many turns in all.") var turns: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double?
    @Option(help: "Milliseconds between a user's turns (each drawn from 0.5x-1.5x).") var thinkMs = 0
    @Option(help: "The mock's OpenAI base URL (e.g. http://127.0.0.1:9090/v1), to run the same scenario directly first.") var direct: String?
    @Option(help: "Seconds before a turn counts as timed out.") var timeout = 120

    var shape: LoadShape {
        var shape = LoadShape(users: users, turns: turns, duration: duration.map { .milliseconds(Int($0 * 1000)) }, thinkTime: .milliseconds(thinkMs))
        shape.setUpConcurrency = min(64, users)
        return shape
    }

    func validate() throws {
        if let duration, !duration.isFinite || duration > 86_400 { throw ValidationError("--duration must be a number of seconds up to 86400.") }
        if let problem = shape.problem { throw ValidationError(problem) }
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second.") }
    }

    func run() async throws {
        var benchmark = ChatBenchmark(hearth: try target.hearth(), clientKey: try target.key(),
                                      direct: try direct.map { try LoadTarget($0, allowRemote: target.allowRemote) }, shape: shape)
        benchmark.timeout = .seconds(timeout)
        print(try await benchmark.run().text)
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seeds one user with many threads and messages through the API, then times history pages of 50 and, if asked, context loads."
    )

    @OptionGroup var target: TargetOptions
    @Option var threads = 200
    @Option(help: "Turns per thread (two messages each).") var turnsPerThread = 25
    @Option(help: "History pages to read after seeding.") var pages = 2000
    @Option(help: "Then prompts to assemble for that user through the debug view (the tenant must allow it: tenant set --prompt-debug on).")
    var contextLoads = 0

    func benchmark() throws -> HistoryBenchmark {
        var benchmark = HistoryBenchmark(hearth: try target.hearth(), clientKey: try target.key(),
                                         threads: threads, turnsPerThread: turnsPerThread, pages: pages)
        benchmark.contextLoads = contextLoads
        return benchmark
    }

    func validate() throws {
        if let problem = try benchmark().problem { throw ValidationError(problem) }
    }

    func run() async throws {
        print(try await benchmark().run().text)
    }
}
