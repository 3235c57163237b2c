import HearthTestSupport
@testable import LLM
import Testing

@Suite struct TokenEstimateTests {
    /// Scalars counted from UTF-8's lead bytes are `unicodeScalars.count`, over every labelled message and text
    /// of one to four bytes a scalar.
    @Test func scalarsAreCountedFromTheirLeadBytes() throws {
        let texts = try TestPaths.labelledTexts() + ["", "a", "é", "e\u{301}", "中文", "😀👍🏽", "\u{10FFFF}", "mixed é 中 😀 text"]
        for text in texts {
            #expect(TokenEstimate.scalarCount(text) == text.unicodeScalars.count, "\(text)")
        }
        #expect(TokenEstimate.count("") == 0 && TokenEstimate.count("a") == 1 && TokenEstimate.count("12345678") == 2)
    }
}
