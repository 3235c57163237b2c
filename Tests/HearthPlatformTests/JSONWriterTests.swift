import Foundation
import HearthPlatform
import Testing

@Suite struct JSONWriterTests {
    static let awkward = [
        "", "plain", #"say "hi""#, #"back\slash"#, "a/b", "line\nbreak\r\n\ttab", "é 😀 中文 \u{2028}\u{2029}",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{7F}\u{80}\u{FFFF}",
    ]

    @Test(arguments: awkward)
    func aStringReadsBackAsItself(_ value: String) throws {
        var json = JSONWriter()
        json.string(value)
        #expect(try JSONSerialization.jsonObject(with: json.data, options: .fragmentsAllowed) as? String == value)
        // Nothing below U+0020 goes out unescaped.
        #expect(!json.bytes.contains { $0 < 0x20 })
    }

    @Test func numbersAndRawTextAreWrittenAsGiven() {
        var json = JSONWriter()
        json.raw(#"{"n":"#)
        json.int(-42)
        json.raw(#","m":"#)
        json.int(Int.max)
        json.raw("}")
        #expect(json.text == #"{"n":-42,"m":9223372036854775807}"#)
    }
}
