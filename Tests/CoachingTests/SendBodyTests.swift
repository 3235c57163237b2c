@testable import Coaching
import Foundation
import HearthPlatform
import Testing

@Suite struct SendBodyTests {
    /// The trim reads Unicode's White_Space property; Foundation's `.whitespacesAndNewlines`, which it replaces,
    /// is the same set. Checked over every scalar of the Basic Multilingual Plane, at both ends.
    @Test func trimmingIsFoundationsWhitespaceAndNewlines() async {
        for value in 0...0xFFFF {
            // 65,536 checks hold a thread of the test process for seconds in a debug build: let the other tests run.
            if value % 2048 == 0 { await Task.yield() }
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar) + "a " + String(scalar) + " b" + String(scalar)
            #expect(MessagesController<HearthRequestContext>.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "U+\(String(value, radix: 16))")
        }
        #expect(MessagesController<HearthRequestContext>.trimmed(" \n\u{3000}") == "")
        #expect(MessagesController<HearthRequestContext>.trimmed("kept as is") == "kept as is")
    }
}
