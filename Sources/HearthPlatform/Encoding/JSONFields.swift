/// Reads a few values out of a small JSON document in one validating pass, building nothing else.
///
/// Provider streams send one JSON object per token, and decoding each with `JSONDecoder` was the largest single
/// cost of relaying an answer (docs/performance.md); every request's access token and every send's body are read
/// with it too. This still reads the whole document, so a malformed chunk
/// is an error as before, but only the values at the requested paths become Swift values.
package struct JSONFields {
    package enum Step: Equatable, Sendable {
        case key(String)
        case index(Int)
    }

    package enum Value: Equatable, Sendable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
        /// An object or array (its contents are only read where a path leads into it).
        case container

        package var string: String? {
            if case .string(let value) = self { return value }
            return nil
        }

        package var number: Double? {
            if case .number(let value) = self { return value }
            return nil
        }

        /// The number, if it is a whole number that fits an `Int`.
        package var int: Int? {
            guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
            return Int(value)
        }
    }

    package struct Malformed: Error, Equatable {
        /// Byte offset where reading failed.
        package let offset: Int
    }

    /// The values at `paths`, in the same order; `nil` where the document has nothing at a path.
    package static func read(_ text: String, _ paths: [[Step]]) throws -> [Value?] {
        precondition(paths.count <= 64, "at most 64 paths")
        var text = text
        return try text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes, paths: paths)
            let all: UInt64 = paths.count == 64 ? .max : (1 << UInt64(paths.count)) - 1
            try reader.value(candidates: all, depth: 0)
            reader.skipWhitespace()
            guard reader.position == bytes.count else { throw Malformed(offset: reader.position) }
            return reader.results
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let paths: [[Step]]
        var results: [Value?]
        var position = 0
        /// Deeper documents are refused rather than risking the stack on hostile input.
        static let maximumDepth = 64

        init(bytes: UnsafeBufferPointer<UInt8>, paths: [[Step]]) {
            self.bytes = bytes
            self.paths = paths
            self.results = Array(repeating: nil, count: paths.count)
        }

        /// Reads one value. `candidates` are the paths (as bits) whose first `depth` steps led here.
        mutating func value(candidates: UInt64, depth: Int) throws {
            guard depth <= Self.maximumDepth else { throw malformed }
            var ending: UInt64 = 0
            var continuing: UInt64 = 0
            var rest = candidates
            while rest != 0 {
                let path = rest.trailingZeroBitCount
                rest &= rest - 1
                if paths[path].count == depth { ending |= 1 << UInt64(path) } else { continuing |= 1 << UInt64(path) }
            }
            skipWhitespace()
            guard position < bytes.count else { throw malformed }
            let found: Value
            switch bytes[position] {
            case UInt8(ascii: "{"):
                try object(candidates: continuing, depth: depth)
                found = .container
            case UInt8(ascii: "["):
                try array(candidates: continuing, depth: depth)
                found = .container
            case UInt8(ascii: "\""):
                let range = try scanString()
                guard ending != 0 else { return }
                found = .string(decodeString(range))
            case UInt8(ascii: "t"):
                try literal("true")
                found = .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                found = .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                found = .null
            default:
                let range = try scanNumber()
                guard ending != 0 else { return }
                guard let number = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)) else { throw malformed }
                found = .number(number)
            }
            while ending != 0 {
                results[ending.trailingZeroBitCount] = found
                ending &= ending - 1
            }
        }

        mutating func object(candidates: UInt64, depth: Int) throws {
            try members(closing: UInt8(ascii: "}")) { reader, _ in
                reader.skipWhitespace()
                guard try reader.peek() == UInt8(ascii: "\"") else { throw reader.malformed }
                let key = try reader.scanString()
                let next = reader.narrowed(candidates, depth: depth) { step in
                    if case .key(let wanted) = step { reader.keyMatches(key, wanted) } else { false }
                }
                reader.skipWhitespace()
                guard try reader.peek() == UInt8(ascii: ":") else { throw reader.malformed }
                reader.position += 1
                try reader.value(candidates: next, depth: depth + 1)
            }
        }

        mutating func array(candidates: UInt64, depth: Int) throws {
            try members(closing: UInt8(ascii: "]")) { reader, index in
                try reader.value(candidates: reader.narrowed(candidates, depth: depth) { $0 == .index(index) }, depth: depth + 1)
            }
        }

        /// Reads the comma-separated members of an object or array (from its opening bracket), `member` reading
        /// the one at each index.
        mutating func members(closing: UInt8, _ member: (inout Reader, Int) throws -> Void) throws {
            position += 1
            skipWhitespace()
            if try peek() == closing {
                position += 1
                return
            }
            var index = 0
            while true {
                try member(&self, index)
                index += 1
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","): position += 1
                case closing: position += 1; return
                default: throw malformed
                }
            }
        }

        /// The candidate paths whose step at `depth` is one `matches` accepts.
        func narrowed(_ candidates: UInt64, depth: Int, _ matches: (Step) -> Bool) -> UInt64 {
            var next: UInt64 = 0
            var rest = candidates
            while rest != 0 {
                let path = rest.trailingZeroBitCount
                rest &= rest - 1
                if matches(paths[path][depth]) { next |= 1 << UInt64(path) }
            }
            return next
        }

        /// Checks a string's syntax and moves past it; returns the range between the quotes.
        mutating func scanString() throws -> Range<Int> {
            position += 1
            let start = position
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    defer { position += 1 }
                    return start..<position
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { throw malformed }
                    switch bytes[position] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        position += 1
                    case UInt8(ascii: "u"):
                        // UTF-16 in escapes: a high surrogate must be followed by an escaped low one.
                        let unit = try escapedUnit(at: position + 1)
                        position += 5
                        if (0xDC00..<0xE000).contains(unit) { throw malformed }
                        if (0xD800..<0xDC00).contains(unit) {
                            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
                                  (0xDC00..<0xE000).contains(try escapedUnit(at: position + 2)) else { throw malformed }
                            position += 6
                        }
                    default:
                        throw malformed
                    }
                case 0..<0x20:
                    throw malformed
                default:
                    position += 1
                }
            }
            throw malformed
        }

        /// The text of a string already checked by ``scanString()``.
        func decodeString(_ range: Range<Int>) -> String {
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
            var scalars = String.UnicodeScalarView()
            var utf8: [UInt8] = []
            func flushUTF8() {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll(keepingCapacity: true)
            }
            var index = 0
            while index < raw.count {
                let byte = raw[index]
                guard byte == UInt8(ascii: "\\") else {
                    utf8.append(byte)
                    index += 1
                    continue
                }
                let escape = raw[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    // Checked by scanString: a high surrogate is followed by `\uDC00`–`\uDFFF`.
                    var unit = Self.codeUnit(raw, at: index)
                    index += 4
                    if (0xD800..<0xDC00).contains(unit) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (Self.codeUnit(raw, at: index + 2) - 0xDC00)
                        index += 6
                    }
                    flushUTF8()
                    scalars.append(Unicode.Scalar(unit)!)
                default: utf8.append(escape) // \" \\ \/
                }
            }
            flushUTF8()
            return String(scalars)
        }

        /// The four hex digits at `index` as a UTF-16 code unit.
        func escapedUnit(at index: Int) throws -> UInt32 {
            guard index + 3 < bytes.count, (0..<4).allSatisfy({ Self.hexValue(bytes[index + $0]) != nil }) else { throw malformed }
            return Self.codeUnit(UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), at: 0)
        }

        static func codeUnit(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 << 4 | UInt32(hexValue(raw[index + $1]) ?? 0) }
        }

        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        func keyMatches(_ range: Range<Int>, _ wanted: String) -> Bool {
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            if raw.contains(UInt8(ascii: "\\")) { return decodeString(range) == wanted }
            return raw.elementsEqual(wanted.utf8)
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func scanNumber() throws -> Range<Int> {
            let start = position
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { throw malformed }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else {
                guard try digits() > 0 else { throw malformed }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard try digits() > 0 else { throw malformed }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard try digits() > 0 else { throw malformed }
            }
            return start..<position
        }

        mutating func digits() throws -> Int {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - start
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count,
                  UnsafeBufferPointer(rebasing: bytes[position..<position + count]).elementsEqual(
                      UnsafeBufferPointer(start: word.utf8Start, count: count)) else { throw malformed }
            position += count
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return
                }
            }
        }

        func peek() throws -> UInt8 {
            guard position < bytes.count else { throw malformed }
            return bytes[position]
        }

        var malformed: Malformed { Malformed(offset: position) }
    }
}
