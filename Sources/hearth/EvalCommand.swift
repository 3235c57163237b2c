import ArgumentParser
import Evaluation
import Safety

struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Measure a classifier on a labelled JSONL file (docs/safety.md); the last line is key=value pairs.",
        subcommands: [Crisis.self, Routing.self, Moderation.self]
    )

    struct Crisis: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: #"Crisis detection: lines {"text": "...", "crisis": true, "kind": "suicidal"}."#)
        @Argument(help: "The JSONL file.") var file: String
        @Flag(help: "Also print every miss and false alarm with the signals behind it.") var showErrors = false
        @Option(help: "Score with this threshold instead of the shipped model's (choosing one on development sets).")
        var threshold: Double?
        @Option(help: "The same for messages in which the rules found no cue or role.") var wordsOnlyThreshold: Double?

        func validate() throws {
            for value in [threshold, wordsOnlyThreshold].compactMap({ $0 }) where !(0...1).contains(value) {
                throw ValidationError("A threshold is a probability, from 0 to 1 (got \(value)).")
            }
        }

        func run() throws {
            let shipped = CrisisModel.shipped
            let model = shipped.with(threshold: threshold ?? shipped.threshold, wordsOnlyThreshold: wordsOnlyThreshold ?? shipped.wordsOnlyThreshold)
            for line in try CrisisEvaluation().run(file: file, showErrors: showErrors, model: model) { print(line) }
        }
    }

    struct Routing: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: #"Domain routing: lines {"text": "...", "domain": "career"}."#)
        @Argument(help: "The JSONL file.") var file: String
        @Option(help: "The domain files the router is built from (docs/domains.md).") var domains = "domains"
        @Flag(help: "Also print every misrouted message with the router's confidence.") var showErrors = false

        func run() throws {
            for line in try RoutingEvaluation().run(file: file, domains: domains, showErrors: showErrors) { print(line) }
        }
    }

    struct Moderation: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: #"Persona screening: lines {"name", "domain", "tone", "methodology", "personality", "expected": "approve"|"reject"}."#
        )
        @Argument(help: "The JSONL file.") var file: String
        @Flag(help: "Also print every missed bad persona and every flagged good one with its reasons.") var showErrors = false

        func run() throws {
            for line in try ModerationEvaluation().run(file: file, showErrors: showErrors) { print(line) }
        }
    }
}
