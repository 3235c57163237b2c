import HearthTestSupport
@testable import LLM
import Testing

/// The offline coach's reflections keep grammar: the second person, no capital mid-sentence, a question asked back
/// as a question, and never the message pasted whole.
@Suite struct ReflectionTests {
    @Test(arguments: [
        // The two the probe read: a capital mid-sentence, and a whole message pasted as a statement.
        ("It happened again in the quarterly review my manager presented my analysis as his own.",
         Reflection.statement("It sounds like it happened again in the quarterly review your manager presented your analysis.")),
        ("How do I talk to my manager about credit without sounding petty?",
         .question("Are you wondering how to talk to your manager about credit without sounding petty?")),
        // Statements: first clause, pronouns turned, "was" turned only after "I".
        ("I feel stuck at my job and I don't know what to do next.", .statement("It sounds like you feel stuck at your job and you don't know what to do next.")),
        ("My manager took credit for my work, and I was too shocked to say anything.", .statement("It sounds like your manager took credit for your work.")),
        ("It was a long week but I finally finished the report.", .statement("It sounds like it was a long week.")),
        ("Sarah keeps cancelling our plans at the last minute.", .statement("It sounds like Sarah keeps cancelling our plans at the last minute.")),
        ("Work has been relentless lately because two people quit.", .statement("It sounds like work has been relentless lately.")),
        // Questions: folded into "wondering" where they fold, asked back as they were where they do not.
        ("Should I quit my job?", .question("Are you wondering whether you should quit your job?")),
        ("Do I really need to tell him?", .question("Are you wondering whether you really need to tell him?")),
        ("What should I say to her tomorrow?", .question("Are you wondering what to say to her tomorrow?")),
        ("Why do I always freeze in meetings?", .question("It sounds like you're asking yourself: why do you always freeze in meetings?")),
        ("I keep procrastinating. How can I stop?", .question("Are you wondering how to stop?")),
    ])
    func reflects(message: String, expected: Reflection) {
        #expect(Reflection.of(message) == expected)
    }

    @Test func tooLittleIsNotReflected() {
        for message in ["", "Hi", "ok thanks", "???", "Why me?"] {
            #expect(Reflection.of(message) == nil, "\(message)")
        }
    }

    /// Over the thousands of labelled messages of evals/: a reflection mirrors at most one clause of 16 words, so a
    /// longer message is never pasted whole; a statement starts in lower case unless with a name; each ends with its
    /// own mark.
    @Test func neverTheMessagePastedWhole() throws {
        var reflected = 0
        for message in try TestPaths.labelledTexts() {
            guard let reflection = Reflection.of(message) else { continue }
            reflected += 1
            switch reflection {
            case .question(let asked):
                #expect(asked.hasSuffix("?"), "\(message)")
            case .statement(let said):
                #expect(said.hasPrefix("It sounds like ") && said.hasSuffix("."), "\(message)")
                let first = said.dropFirst("It sounds like ".count).split(separator: " ").first.map(String.init) ?? ""
                #expect(first.first?.isUppercase != true || Reflection.namesLike(first) || first == "I", "\(message)")
            }
            if message.split(whereSeparator: \.isWhitespace).count > 16 { #expect(!reflection.text.contains(message), "\(message)") }
        }
        #expect(reflected > 1000)
    }
}
