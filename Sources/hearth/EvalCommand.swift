import ArgumentParser
import Evaluation

struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Measure a classifier on a labelled JSONL file (docs/safety.md); the last line is key=value pairs.",
        subcommands: [Crisis.self]
    )

    struct Crisis: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: #"Crisis detection: lines {"text": "...", "crisis": true, "kind": "suicidal"}."#)
        @Argument(help: "The JSONL file.") var file: String
        @Flag(help: "Also print every miss and false alarm with the signals behind it.") var showErrors = false

        func run() throws {
            for line in try CrisisEvaluation().run(file: file, showErrors: showErrors) { print(line) }
        }
    }
}
