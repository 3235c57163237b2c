import ArgumentParser
import Evaluation
import Safety

struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a shipped classifier from labelled JSONL files (docs/safety.md).",
        subcommands: [Crisis.self, Moderation.self]
    )

    /// How either model is fitted (``LinearFit``); each option left out keeps the model's own default
    /// (docs/safety.md).
    struct Fitting: ParsableArguments {
        @Option(help: "Inverse regularisation strength: larger fits the training files more closely (default: the model's own).") var c: Double?
        @Option(help: "Drop features seen in fewer training examples than this (default: the model's own).") var minimumCount: Int?
        @Option(help: "Full-batch optimisation steps (default: the model's own).") var iterations: Int?

        func validate() throws {
            if let c, !(c > 0 && c.isFinite) { throw ValidationError("--c must be a positive number, got \(c)") }
            if let minimumCount, minimumCount < 1 { throw ValidationError("--minimum-count must be at least 1, got \(minimumCount)") }
            if let iterations, iterations < 1 { throw ValidationError("--iterations must be at least 1, got \(iterations)") }
        }

        func applied(to defaults: LinearFit) -> LinearFit {
            var fit = defaults
            if let c { fit.inverseRegularisation = c }
            if let minimumCount { fit.minimumCount = minimumCount }
            if let iterations { fit.iterations = iterations }
            return fit
        }
    }

    struct Crisis: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: #"The crisis model, from lines {"text": "...", "crisis": true, "kind": "suicidal"}."#)
        @Argument(help: "The training files.") var files: [String]
        @Option(help: "The Swift file to write.") var output = "Sources/Safety/Model/CrisisModelWeights.swift"
        @OptionGroup var fitting: Fitting
        private static let defaults = CrisisModelTrainer.Options()
        @Option(help: "The crisis probability from which a message is a crisis.") var threshold = defaults.threshold
        @Option(help: "The same when the rules found no cue or role.") var wordsOnlyThreshold = defaults.wordsOnlyThreshold

        func validate() throws {
            try TrainCommand.checkProbability(threshold, "--threshold")
            try TrainCommand.checkProbability(wordsOnlyThreshold, "--words-only-threshold")
        }

        func run() throws {
            var options = CrisisModelTrainer.Options()
            options.fit = fitting.applied(to: options.fit)
            options.threshold = threshold
            options.wordsOnlyThreshold = wordsOnlyThreshold
            for line in try CrisisTraining().run(files: files, output: output, options: options) { print(line) }
        }
    }

    struct Moderation: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: #"The persona screening's model, from lines {"name", …, "expected": "reject", "reason": "injection"}."#
        )
        @Argument(help: "The training files.") var files: [String]
        @Option(help: "The Swift file to write.") var output = "Sources/Safety/Moderation/ModerationModelWeights.swift"
        @OptionGroup var fitting: Fitting
        private static let defaults = ModerationModelTrainer.Options()
        @Option(help: "The probability of \"not approve\" from which a persona is flagged.") var threshold = defaults.threshold

        func validate() throws {
            try TrainCommand.checkProbability(threshold, "--threshold")
        }

        func run() throws {
            var options = ModerationModelTrainer.Options()
            options.fit = fitting.applied(to: options.fit)
            options.threshold = threshold
            for line in try ModerationTraining().run(files: files, output: output, options: options) { print(line) }
        }
    }

    /// A threshold is a probability: a model file keeps only those, so a value outside 0...1 is refused before training.
    static func checkProbability(_ value: Double, _ option: String) throws {
        guard (0...1).contains(value) else { throw ValidationError("\(option) must be a probability from 0 to 1, got \(value)") }
    }
}
