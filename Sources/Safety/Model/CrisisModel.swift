import Foundation

/// The second signal of the crisis check, which makes the decision: a multinomial logistic regression over
/// ``CrisisFeatures`` (the rule reader's findings and the words), trained by ``CrisisModelTrainer`` on the
/// labelled sets under `evals/train/` and shipped as text in `CrisisModelWeights.swift`.
///
/// Linear (``LinearModel``), so every answer can be explained: a feature's contribution to a kind is its weight
/// for that kind minus its weight for "none" (``CrisisAssessment/evidence``).
public struct CrisisModel: Sendable {
    /// "none" first, then the kinds.
    static let classes: [CrisisKind?] = [nil] + CrisisKind.allCases
    /// Version 2: the word and letter features are scaled to unit length (``CrisisFeatures``). Version 3: weights
    /// are written as whole ten-thousandths (`-111` for −0.0111), the same values in a third less text.
    static let header = "hearth-crisis-model 3"
    static let classesLine = "classes " + classes.map { $0?.rawValue ?? "none" }.joined(separator: " ")

    let linear: LinearModel
    /// The crisis probability at which a message is a crisis.
    public let threshold: Double
    /// The same when the rules found no cue or role: words alone are weaker evidence than a cue read in context.
    public let wordsOnlyThreshold: Double

    public var featureCount: Int { linear.featureCount }

    struct FormatError: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "crisis model line \(line): \(reason)" }
    }

    /// The model `hearth train crisis` wrote into the binary.
    public static let shipped: CrisisModel = {
        do {
            return try CrisisModel(text: CrisisModelWeights.text)
        } catch {
            fatalError("the shipped crisis model does not parse: \(error)")
        }
    }()

    init(linear: LinearModel, threshold: Double, wordsOnlyThreshold: Double) {
        precondition(linear.classCount == Self.classes.count, "a weight per class")
        self.linear = linear
        self.threshold = threshold
        self.wordsOnlyThreshold = wordsOnlyThreshold
    }

    /// Reads the text ``text`` writes: a header, `classes …`, `threshold …`, `threshold-words-only …`, then one
    /// line per feature: the name, a tab, a weight per class in ten-thousandths.
    public init(text: String) throws {
        var weights: [String: [Double]] = [:]
        var threshold: Double?
        var wordsOnlyThreshold: Double?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first.map(String.init) == Self.header else { throw FormatError(line: 1, reason: "expected \"\(Self.header)\"") }
        for (offset, line) in lines.enumerated().dropFirst() {
            if line.hasPrefix("classes ") {
                guard line == Self.classesLine else { throw FormatError(line: offset + 1, reason: "expected \(Self.classesLine)") }
            } else if line.hasPrefix("threshold ") {
                threshold = Double(line.dropFirst(10))
            } else if line.hasPrefix("threshold-words-only ") {
                wordsOnlyThreshold = Double(line.dropFirst(21))
            } else {
                guard let (name, values) = LinearModel.featureLine(line, classCount: Self.classes.count) else {
                    throw FormatError(line: offset + 1, reason: "expected a name, a tab and \(Self.classes.count) weights")
                }
                weights[name] = values
            }
        }
        guard let threshold, let wordsOnlyThreshold, (0...1).contains(threshold), (0...1).contains(wordsOnlyThreshold) else {
            throw FormatError(line: 0, reason: "no threshold and threshold-words-only between 0 and 1")
        }
        self.init(linear: LinearModel(weights: weights, classCount: Self.classes.count), threshold: threshold, wordsOnlyThreshold: wordsOnlyThreshold)
    }

    /// The model as text: the header, classes and thresholds, then the feature lines (``LinearModel``).
    public var text: String {
        ([Self.header, Self.classesLine, "threshold \(threshold)", "threshold-words-only \(wordsOnlyThreshold)"] + linear.featureLines)
            .joined(separator: "\n") + "\n"
    }

    /// The Swift file the shipped model lives in (`CrisisModelWeights.swift`): the text as one raw literal, which
    /// the compiler reads as fast as a resource and which needs no bundle beside the binary.
    public var swiftSource: String {
        "// Written by `hearth train crisis` (docs/safety.md): the shipped crisis model. Do not edit by hand.\n"
            + "enum CrisisModelWeights {\n    static let text = #\"\"\"\n" + text + "\"\"\"#\n}\n"
    }

    /// Class probabilities for a message's features, "none" first.
    func probabilities(_ features: [String: Double]) -> [Double] { linear.probabilities(features) }

    /// The features that pushed hardest from "none" towards `kind`, strongest first.
    func evidence(_ features: [String: Double], for kind: CrisisKind, limit: Int = 5) -> [String] {
        guard let column = Self.classes.firstIndex(of: kind) else { return [] }
        return linear.evidence(features, towards: column, limit: limit)
    }
}
