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
    static let format = LinearModel.FileFormat(
        name: "crisis", header: "hearth-crisis-model 3", classes: classes.map { $0?.rawValue ?? "none" },
        settings: ["threshold", "threshold-words-only"]
    )

    let linear: LinearModel
    /// The crisis probability at which a message is a crisis.
    public let threshold: Double
    /// The same when the rules found no cue or role: words alone are weaker evidence than a cue read in context.
    public let wordsOnlyThreshold: Double

    public var featureCount: Int { linear.featureCount }

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

    /// The same weights deciding at other thresholds: `hearth eval crisis --threshold` tries one on the development
    /// sets without a retrain.
    public func with(threshold: Double, wordsOnlyThreshold: Double) -> CrisisModel {
        CrisisModel(linear: linear, threshold: threshold, wordsOnlyThreshold: wordsOnlyThreshold)
    }

    /// Reads the text ``text`` writes (``LinearModel/read(_:as:)``).
    public init(text: String) throws {
        let (linear, settings) = try LinearModel.read(text, as: Self.format)
        self.init(linear: linear, threshold: settings["threshold"]!, wordsOnlyThreshold: settings["threshold-words-only"]!)
    }

    /// The model as text: the header, classes and thresholds, then a line per feature.
    public var text: String {
        linear.text(as: Self.format, settings: ["threshold": threshold, "threshold-words-only": wordsOnlyThreshold])
    }

    /// The Swift file the shipped model lives in (`CrisisModelWeights.swift`).
    public var swiftSource: String {
        LinearModel.swiftSource(text, enumName: "CrisisModelWeights", format: Self.format)
    }

    /// Class probabilities for a message's features, "none" first.
    func probabilities(_ features: HashedFeatures) -> [Double] { linear.probabilities(features) }

    /// The features that pushed hardest from "none" towards `kind`, strongest first.
    func evidence(_ features: [String: Double], for kind: CrisisKind) -> [String] {
        guard let column = Self.classes.firstIndex(of: kind) else { return [] }
        return linear.evidence(features, towards: column)
    }
}
