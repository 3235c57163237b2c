import ArgumentParser
import Foundation
import HearthApp
import HearthPlatform
import Logging

struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Inspect the background job queue and retry dead jobs.",
        subcommands: [List.self, Retry.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the newest jobs: id, kind, state, attempts, next run, last error.")
        @Option(help: "Only jobs in this state: pending, running, done or dead.") var state: String?
        @Option(help: "How many (1–1000).") var limit = 50

        func validate() throws {
            if let state, JobStore.State(rawValue: state) == nil { throw ValidationError("--state must be pending, running, done or dead") }
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let state = state.flatMap(JobStore.State.init(rawValue:))
            let jobs = try await withJobStore { try await $0.list(state: state, limit: limit) }
            let formatter = ISO8601DateFormatter()
            for job in jobs {
                print([String(job.id), job.kind, job.state.rawValue, "\(job.attempts)/\(job.maxAttempts)",
                       formatter.string(from: job.runAt), job.lastError ?? "-"].joined(separator: "\t"))
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a dead job a fresh set of attempts, now.")
        @Argument var id: Int64

        func run() async throws {
            guard try await withJobStore({ try await $0.retry(id) }) else { throw ValidationError("no dead job with id \(id)") }
            print("job \(id) is pending again")
        }
    }
}

func withJobStore<T: Sendable>(_ body: @Sendable (JobStore) async throws -> T) async throws -> T {
    try await AdminTasks.withJobs(try Config.loadForCommand(), logger: Logger(label: "hearth.jobs"), body)
}
