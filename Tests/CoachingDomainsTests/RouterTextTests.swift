@testable import CoachingDomains
import HearthTestSupport
import Testing

@Suite struct RouterTextTests {
    /// The router reads ASCII messages from bytes; over every labelled message (and a few awkward ones) that
    /// reading is the general, `Character` by `Character` one.
    @Test func asciiWordsAreTheCharacterReading() async throws {
        let texts = try TestPaths.labelledTexts() + ["", "'''", "Don't STOP", "a1b2 3c", "tabs\tand\r\nlines", "x--y", "ALL CAPS!!!"]
        var ascii = 0
        for (index, text) in texts.enumerated() where text.utf8.allSatisfy({ $0 < 0x80 }) {
            #expect(RouterText.asciiWords(text) == RouterText.characterWords(text), "\(text)")
            ascii += 1
            // A long synchronous loop would hold one of the test process's threads (see CrisisModelTests).
            if index % 500 == 0 { await Task.yield() }
        }
        #expect(ascii > texts.count / 2)
        #expect(RouterText.words("Café PAY rises") == RouterText.characterWords("Café PAY rises"))
    }
}
