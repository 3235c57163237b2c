/// What a crisis check can find (FR16): risk to the person, to them from someone else, to others by them, or to
/// someone they are telling us about.
public enum CrisisKind: String, Sendable, Codable, CaseIterable {
    case suicidal
    case selfHarm = "self_harm"
    case abuse
    case harmToOthers = "harm_to_others"
    case thirdParty = "third_party"
}

/// The classifier's answer for one message, with its reasons: the cues that fired and what weakened them.
/// Cue names, never message text, so an assessment can be logged and stored.
public struct CrisisAssessment: Sendable, Equatable {
    public struct Signal: Sendable, Equatable, CustomStringConvertible {
        public let cue: String
        public let kind: CrisisKind
        public let weight: Double
        /// Why the weight was lowered ("negated", "past", "fiction", "quoted", "laughing"); empty when it counts in full.
        public let modifiers: [String]
        public let score: Double

        public var description: String {
            let rounded = (score * 100).rounded() / 100
            let reasons = modifiers.isEmpty ? "" : "[" + modifiers.joined(separator: ",") + "]"
            return "\(kind.rawValue):\(cue)=\(rounded)\(reasons)"
        }
    }

    /// Scores of at least this are a crisis.
    public static let threshold = 0.5

    /// The most likely kind and its score (0…1), whether or not it reaches the threshold.
    public let kind: CrisisKind?
    public let score: Double
    public let signals: [Signal]

    public var isCrisis: Bool { score >= Self.threshold }

    /// The kind, when this is a crisis.
    public var crisis: CrisisKind? { isCrisis ? kind : nil }

    public static let none = CrisisAssessment(kind: nil, score: 0, signals: [])
}
