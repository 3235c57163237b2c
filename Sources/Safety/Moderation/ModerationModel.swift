import Foundation

/// The decision of the persona screening: a ``LinearModel`` over what the rules found (``PersonaScreening``'s
/// reasons) and the words and letter runs of the persona (``ModerationFeatures``), trained by
/// ``ModerationModelTrainer`` on `evals/train-moderation/` and shipped as text in `ModerationModelWeights.swift`.
/// Phrase lists alone missed two in five unseen bad personas (docs/safety.md): the many ways a cruel or clinical
/// persona is described are what a model over words learns.
public struct ModerationModel: Sendable {
    /// "approve" first, then the concerns.
    static let classes: [ModerationConcern?] = [nil] + ModerationConcern.allCases
    static let format = LinearModel.FileFormat(
        name: "moderation", header: "hearth-moderation-model 1", classes: classes.map { $0?.rawValue ?? "approve" },
        settings: ["threshold"]
    )

    let linear: LinearModel
    /// The probability of "not approve" from which a persona is flagged.
    public let threshold: Double

    public var featureCount: Int { linear.featureCount }

    /// The model `hearth train moderation` wrote into the binary.
    public static let shipped: ModerationModel = {
        do {
            return try ModerationModel(text: ModerationModelWeights.text)
        } catch {
            fatalError("the shipped moderation model does not parse: \(error)")
        }
    }()

    init(linear: LinearModel, threshold: Double) {
        precondition(linear.classCount == Self.classes.count, "a weight per class")
        self.linear = linear
        self.threshold = threshold
    }

    public init(text: String) throws {
        let (linear, settings) = try LinearModel.read(text, as: Self.format)
        self.init(linear: linear, threshold: settings["threshold"]!)
    }

    public var text: String { linear.text(as: Self.format, settings: ["threshold": threshold]) }

    /// The Swift file the shipped model lives in (`ModerationModelWeights.swift`).
    public var swiftSource: String {
        LinearModel.swiftSource(text, enumName: "ModerationModelWeights", format: Self.format)
    }

    /// How likely the persona should not pass (0…1), and the concern most likely behind it.
    func assess(_ features: [String: Double]) -> (score: Double, concern: ModerationConcern) {
        let probabilities = linear.probabilities(features)
        let best = probabilities.indices.dropFirst().max { probabilities[$0] < probabilities[$1] } ?? 1
        return (1 - probabilities[0], Self.classes[best]!)
    }
}

/// What ``ModerationModel`` reads from a persona: `cue:<name>` and `concern:<concern>` for each reason the
/// rules found (disguises and links included), `denied:<cue>` for a cue a denial or referral cleared, `len:`
/// how long the persona is, and the word and letter blocks of ``TextFeatures`` over every field with its
/// disguises off.
enum ModerationFeatures {
    static func extract(reasons: [PersonaScreening.Reason], cleared: Set<String>, texts: [String]) -> [String: Double] {
        var features = NamedFeatures()
        var names = ["bias"] + reasons.flatMap { ["cue:" + $0.cue, "concern:" + $0.concern.rawValue] } + cleared.map { "denied:" + $0 }
        let tokens = Tokens(texts.joined(separator: "\n"))
        let count = tokens.tokens.count
        names.append("len:" + (count <= 20 ? "1-20" : count <= 60 ? "21-60" : count <= 150 ? "61-150" : "151+"))
        for name in names { features.set(FeatureName(name), 1) }
        TextFeatures.addBlocks(tokens, weakened: [:], to: &features)
        return features.values
    }
}
