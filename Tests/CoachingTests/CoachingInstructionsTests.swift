@testable import Coaching
import Testing

/// Operator text is put on one line; whether it has a break is read from its scalars.
@Suite struct CoachingInstructionsTests {
    @Test func aLineBreakIsFoundExactlyWhereCharactersSeeOne() {
        let breaks = ["\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]
        let texts = breaks.map { "Tone: calm\($0)and warm" } + ["Tone: calm and warm", "caf\u{E9} \u{1F600} \u{301}", "tab\tseparated", ""]
        for text in texts {
            #expect(CoachingInstructions.hasLineBreak(text) == text.contains(where: \.isNewline), "\(text.debugDescription)")
        }
        #expect(CoachingInstructions.clean("Listen first.\u{2028}Then ask.") == "Listen first. Then ask.")
        #expect(CoachingInstructions.clean("Listen first, then ask.") == "Listen first, then ask.")
    }
}
