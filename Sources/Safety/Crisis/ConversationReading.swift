/// When a message's crisis reading hangs on the conversation around it (issue 39): no cue was found, so the
/// model's words alone decided, and the message cannot say what it is about by itself. Either it is too short to
/// carry its own meaning ("fault test none", "plan is set"), or its act is an "it" or "that" that nothing before it
/// in the message names ("My manager did it again today in the standup."). Read alone, the words "did it again"
/// are a relapse in the labelled sets, where what "it" is comes earlier in the same message; in a conversation
/// about a manager who takes credit, they are not.
///
/// Such a message, flagged alone, is read again after the person's recent messages (and their session's summary):
/// it stays a crisis only if it reads as one there. The conversation only ever clears a flag its words raised:
/// a thread already in crisis is in crisis support anyway (``TurnSafety``), and a message with a cue is never
/// second-guessed. With no conversation to read, an unresolved "it" stands as flagged, and a short message must be
/// as telling as the least telling short crisis without a cue in the labelled sets (0.44, "done. bye.") less a margin.
enum ConversationReading {
    /// Words at most, for a message too short to carry its own meaning.
    static let shortWords = 3

    /// The score a short, cue-less message read alone must reach. The labelled sets' short messages without a cue
    /// score at most 0.27 when they are not crises and at least 0.44 when they are; the model's own thresholds
    /// (0.23 and 0.27) sit at the first.
    static let shortAloneThreshold = 0.40

    /// A repeat of an act it does not name: the relapse reading ("did it again", "it happened again", "at it again").
    /// Without "again" an "it" is as often the message's own ("waiting to die and hoping it happens sooner") or no
    /// act at all ("how long does it take"), and the labelled sets' crises say so.
    static let unresolvedActs = [
        TokenPattern("it|that|this again"),
        TokenPattern("it|that|this happened|happens|happening again"),
    ]

    /// Whether `tokens`, in which the rules found `signals`, needs the conversation to be read.
    static func needsConversation(_ tokens: Tokens, signals: [CrisisAssessment.Signal]) -> Bool {
        guard signals.isEmpty, !tokens.tokens.isEmpty else { return false }
        if isShort(tokens) { return true }
        // The act must be in the first clause: in a later one, "it" can be what the message said before.
        let firstClause = 0..<(tokens.tokens.firstIndex { $0.clause != tokens.tokens[0].clause } ?? tokens.tokens.count)
        return unresolvedActs.contains { $0.firstMatch(in: tokens.keyed, range: firstClause) != nil }
    }

    static func isShort(_ tokens: Tokens) -> Bool { tokens.tokens.count <= shortWords }
}
