import Foundation
import Safety

/// `hearth train moderation FILE…`: trains the persona screening's model on labelled personas (the format
/// `hearth eval moderation` reads; a reject needs its `reason`) and writes the Swift file the binary ships it in.
public struct ModerationTraining {
    public init() {}

    /// The report, line by line.
    public func run(files: [String], output: String, options: ModerationModelTrainer.Options) throws -> [String] {
        var examples: [ModerationModelTrainer.Example] = []
        for file in files {
            examples += try LabelledFile.read(ModerationEvaluation.Example.self, from: file) { example in
                example.expected == .reject && example.concern == nil ? "a reject needs its \"reason\", one of the concerns" : nil
            }
            .map { .init(fields: $0.fields, concern: $0.expected == .reject ? $0.concern : nil) }
        }
        let model = ModerationModelTrainer().train(examples, options: options)
        try model.swiftSource.write(toFile: output, atomically: true, encoding: .utf8)
        let rejects = examples.filter { $0.concern != nil }.count
        return [
            "trained on \(examples.count) personas (\(rejects) to reject) from \(files.count) files",
            "features=\(model.featureCount) threshold=\(model.threshold) wrote \(output)",
        ]
    }
}
