import Foundation
import Safety

/// `hearth train crisis FILE…`: trains the crisis model on labelled messages (the format `hearth eval crisis`
/// reads; a crisis needs its kind) and writes the Swift file the binary ships it in.
public struct CrisisTraining {
    public init() {}

    /// The report, line by line.
    public func run(files: [String], output: String, options: CrisisModelTrainer.Options) throws -> [String] {
        var examples: [CrisisModelTrainer.Example] = []
        for file in files {
            examples += try LabelledFile.read(CrisisEvaluation.Example.self, from: file) { example in
                example.crisis && example.kind == nil ? "a crisis needs its \"kind\"" : nil
            }
            .map { .init(text: $0.text, kind: $0.crisis ? $0.kind : nil) }
        }
        let model = CrisisModelTrainer().train(examples, options: options)
        try model.swiftSource.write(toFile: output, atomically: true, encoding: .utf8)
        let crises = examples.filter { $0.kind != nil }.count
        return [
            "trained on \(examples.count) messages (\(crises) crisis) from \(files.count) files",
            "features=\(model.featureCount) threshold=\(model.threshold) wrote \(output)",
        ]
    }
}
