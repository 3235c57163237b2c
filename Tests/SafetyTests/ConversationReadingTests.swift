@testable import Safety
import Foundation
import Testing

/// A message whose crisis reading hangs on the conversation (issue 39): a relapse cue that does not name its act,
/// or a message too short to say what it is about, with no cue found.
@Suite struct ConversationReadingTests {
    let detector = CrisisDetector()
    static let career = ["My manager keeps presenting my work as his own in meetings.",
                         "How do I talk to him about credit without sounding petty?"]
    static let selfHarm = ["I've been cutting my arms again when it gets bad at home."]

    @Test(arguments: ["My manager did it again today in the standup.", "I did it again.", "did it again today", "it happened again this morning"])
    func aRepeatThatDoesNotNameItsActIsReadWithTheConversation(text: String) {
        let alone = detector.assess(text)
        #expect(alone.isCrisis && alone.readsConversation)
        #expect(!detector.assess(text, conversation: Self.career).isCrisis)
        #expect(detector.assess(text, conversation: Self.selfHarm).crisis == .selfHarm)
        // Opening a conversation, it stands: nothing says what "it" is.
        #expect(detector.assess(text, conversation: []).isCrisis)
    }

    @Test func anActNamedEarlierInTheMessageNeedsNoConversation() {
        let text = "when the dysphoria is bad i scrub my skin with steel wool. did it again this morning"
        let assessment = detector.assess(text, conversation: Self.career)
        #expect(assessment.isCrisis && !assessment.readsConversation)
    }

    @Test func aShortMessageWithoutACueIsReadWithTheConversationOrMustBeTellingAlone() {
        // Too short to say what it is about: "fault test none" is not a crisis; "plan is set" is one only where
        // the conversation makes it one.
        #expect(!detector.assess("fault test none", conversation: []).isCrisis)
        #expect(detector.assess("done. bye.", conversation: []).isCrisis)
        #expect(detector.assess("plan is set", conversation: []).isCrisis)
        #expect(!detector.assess("plan is set", conversation: Self.career).isCrisis)
        #expect(detector.assess("plan is set", conversation: ["I can't keep going, I've been thinking about ending my life."]).isCrisis)
    }

    @Test(arguments: ["I want to kill myself", "cut again last night", "honestly everyone would be better off without me"])
    func aMessageWithACueIsNeverSecondGuessed(text: String) {
        let assessment = detector.assess(text, conversation: Self.career)
        #expect(assessment.isCrisis && !assessment.readsConversation)
    }

    /// Recall kept: no message of the development and holdout sets flagged alone is cleared by an ordinary coaching
    /// conversation before it.
    @Test func noLabelledCrisisIsClearedByAnOrdinaryConversation() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../evals").standardized.path
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crisis-dev") }.map { "\(directory)/\($0)" }
            + ["\(directory)/holdout/crisis.jsonl"]
        var flagged = 0
        var cleared: [String] = []
        for file in files {
            for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
                guard let example = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let text = example["text"] as? String, example["crisis"] as? Bool == true else { continue }
                guard detector.assess(text, conversation: []).isCrisis else { continue }
                flagged += 1
                if !detector.assess(text, conversation: Self.career).isCrisis { cleared.append(text) }
            }
        }
        #expect(flagged > 1000)
        #expect(cleared.isEmpty, "\(cleared)")
    }
}
