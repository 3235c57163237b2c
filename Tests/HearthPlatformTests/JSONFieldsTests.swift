import Foundation
import HearthPlatform
import Testing

@Suite struct JSONFieldsTests {
    typealias Step = JSONFields.Step

    @Test func readsTheValuesAtThePathsAndNothingElse() throws {
        let chunk = #"{"id":"c1","created":1700000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi \"you\"\n\u00e9\ud83d\ude00"},"finish_reason":null}],"usage":{"prompt_tokens":12,"completion_tokens":3.0}}"#
        let values = try JSONFields.read(chunk, [
            [.key("choices"), .index(0), .key("delta"), .key("content")],
            [.key("usage"), .key("prompt_tokens")],
            [.key("usage"), .key("completion_tokens")],
            [.key("choices"), .index(0), .key("finish_reason")],
            [.key("choices"), .index(1)],
            [.key("error")],
            [.key("choices")],
            [.key("created")],
        ])
        #expect(values[0] == .string("Hi \"you\"\né😀"))
        #expect(values[1]?.int == 12)
        #expect(values[2]?.int == 3)
        #expect(values[3] == .null)
        #expect(values[4] == nil)
        #expect(values[5] == nil)
        #expect(values[6] == .container)
        #expect(values[7]?.int == 1_700_000_000)
    }

    @Test func escapedKeysAndScalarsAtTheTop() throws {
        #expect(try JSONFields.read(#"{"a\u0062":true}"#, [[.key("ab")]]) == [.bool(true)])
        #expect(try JSONFields.read(" -1.5e2 ", [[]]) == [.number(-150)])
        #expect(try JSONFields.read("[[1,[2,3]]]", [[.index(0), .index(1), .index(1)]]) == [.number(3)])
    }

    @Test(arguments: [
        #"{"choices": [{"delta": "#, #"{"a":1,}"#, #"{"a" 1}"#, "[1 2]", #""\x""#, "01", "1.", "-", "1e", "tru", "nul",
        #"{"a":"b"} x"#, "\"a\u{1}b\"", #""\u12""#, "{", "", "   ", "{\"a\":[}", "[1,]", #"{1:2}"#,
        #""x\ud800y""#, #""\udc00""#, #"{"a":"\ud83d\u0041"}"#,
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func malformedDocumentsAreRejected(_ text: String) {
        #expect(throws: JSONFields.Malformed.self) { try JSONFields.read(text, [[.key("a")]]) }
    }

    /// Against Foundation's parser: generated documents (and every one-character deletion of some) are accepted
    /// or rejected alike, and each leaf reads back as Foundation sees it.
    @Test func agreesWithJSONSerialization() throws {
        var generator = Generator(seed: 42)
        for round in 0..<300 {
            let (text, leaves) = generator.document()
            for (path, expected) in leaves {
                let value = try JSONFields.read(text, [path])[0]
                #expect(value == expected, "\(text) at \(path)")
            }
            guard round % 10 == 0 else { continue }
            for offset in 0..<text.count {
                var broken = text
                broken.remove(at: broken.index(broken.startIndex, offsetBy: offset))
                let foundation = (try? JSONSerialization.jsonObject(with: Data(broken.utf8), options: .fragmentsAllowed)) != nil
                let ours = (try? JSONFields.read(broken, [])) != nil
                #expect(ours == foundation, "\(broken)")
            }
        }
    }

    /// Random JSON with its leaves, written with random whitespace.
    struct Generator {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }

        mutating func document() -> (String, [([Step], JSONFields.Value)]) {
            var leaves: [([Step], JSONFields.Value)] = []
            let text = value(path: [], depth: 0, leaves: &leaves)
            return (space() + text + space(), leaves)
        }

        mutating func space() -> String { ["", " ", "\n", "\t ", "\r\n"][next(5)] }

        mutating func value(path: [Step], depth: Int, leaves: inout [([Step], JSONFields.Value)]) -> String {
            switch next(depth > 3 ? 5 : 7) {
            case 0:
                let pieces = ["a", "é", "😀", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", " ", "\\/"]
                let decoded = ["a", "é", "😀", "\"", "\\", "\n", "é", "😀", " ", "/"]
                let picks = (0..<next(5)).map { _ in next(pieces.count) }
                leaves.append((path, .string(picks.map { decoded[$0] }.joined())))
                return "\"" + picks.map { pieces[$0] }.joined() + "\""
            case 1:
                let number = [("0", 0.0), ("-12", -12), ("3.25", 3.25), ("1e3", 1000), ("-0.5E-1", -0.05), ("123456789", 123_456_789)][next(6)]
                leaves.append((path, .number(number.1)))
                return number.0
            case 2:
                let literal = [("true", JSONFields.Value.bool(true)), ("false", .bool(false)), ("null", .null)][next(3)]
                leaves.append((path, literal.1))
                return literal.0
            case 3, 4:
                leaves.append((path, .container))
                return "[" + (0..<next(4)).map { index in space() + value(path: path + [.index(index)], depth: depth + 1, leaves: &leaves) + space() }
                    .joined(separator: ",") + "]"
            default:
                leaves.append((path, .container))
                return "{" + (0..<next(4)).map { index in
                    space() + "\"k\(index)\"" + space() + ":" + space() + value(path: path + [.key("k\(index)")], depth: depth + 1, leaves: &leaves)
                }.joined(separator: ",") + space() + "}"
            }
        }
    }
}
