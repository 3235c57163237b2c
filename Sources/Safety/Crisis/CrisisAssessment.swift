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
/// Cue names, never message text, so ``signals`` can be logged and stored; ``evidence`` names words and is for
/// development output only.
public struct CrisisAssessment: Sendable {
    public struct Signal: Sendable, Equatable, CustomStringConvertible {
        public let cue: String
        public let kind: CrisisKind
        /// Why the weight was lowered ("negated", "past", "fiction", "quoted", "laughing"); empty when it counts in full.
        public let modifiers: [String]
        public let score: Double
        /// The words of the message the cue matched (token indices).
        let span: Range<Int>

        public var description: String {
            let rounded = (score * 100).rounded() / 100
            let reasons = modifiers.isEmpty ? "" : "[" + modifiers.joined(separator: ",") + "]"
            return "\(kind.rawValue):\(cue)=\(rounded)\(reasons)"
        }
    }

    /// The most likely kind, whether or not the message is a crisis.
    public let kind: CrisisKind?
    /// How likely the message is a crisis of any kind (0…1).
    public let score: Double
    public let isCrisis: Bool
    public let signals: [Signal]
    /// Flagged by words whose meaning hangs on the conversation around them (``ConversationReading``): to be read
    /// again with it (``CrisisDetector/reassess(_:alone:conversation:)``).
    public let readsConversation: Bool
    private let explain: @Sendable () -> [String]

    init(kind: CrisisKind?, score: Double, isCrisis: Bool, signals: [Signal], readsConversation: Bool = false,
         evidence: @escaping @Sendable () -> [String]) {
        self.kind = kind
        self.score = score
        self.isCrisis = isCrisis
        self.signals = signals
        self.readsConversation = readsConversation
        explain = evidence
    }

    /// The kind, when this is a crisis.
    public var crisis: CrisisKind? { isCrisis ? kind : nil }

    /// The model features that pushed hardest towards ``kind``, with their contributions. They name the
    /// message's words: print them while developing, never log or store them.
    public var evidence: [String] { explain() }

    public static let none = CrisisAssessment(kind: nil, score: 0, isCrisis: false, signals: [], evidence: { [] })

    /// The same reading, not a crisis: its words raised a flag the conversation around them does not bear out.
    func cleared() -> CrisisAssessment {
        CrisisAssessment(kind: kind, score: score, isCrisis: false, signals: signals, readsConversation: false, evidence: explain)
    }

    /// A crisis assessed and recorded earlier (a retried answer is announced as its first attempt was).
    public static func recorded(_ kind: CrisisKind) -> CrisisAssessment {
        CrisisAssessment(kind: kind, score: 1, isCrisis: true, signals: [], evidence: { [] })
    }
}
