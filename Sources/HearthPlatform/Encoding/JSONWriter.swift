import Foundation

/// JSON text written directly, for what is written on every request: the provider's request body, the stream's
/// `start`, `delta` and `done` events, and the log lines (``LineLogHandler``). `JSONEncoder` was about 5% of the
/// server's CPU, the request body alone 2.2% (docs/performance-notes.md); the rarer payloads keep using it.
/// ``JSONFields`` is the matching reader.
///
/// Strings are escaped as RFC 8259 requires: `"`, `\` and the control characters below U+0020; every other
/// scalar is written as its UTF-8, which a Swift `String` always is.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    /// JSON punctuation and keys, written as they are: `{"model":`.
    public mutating func raw(_ text: StaticString) {
        // Either representation: a one-scalar literal such as "}" may be stored as its scalar, not as bytes.
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Bytes already valid where they go, such as a timestamp's digits.
    public mutating func raw(_ text: [UInt8]) {
        bytes.append(contentsOf: text)
    }

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        escaped(value)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string's contents escaped as in a JSON string, without the quotes: also what keeps a text log line on one line.
    public mutating func escaped(_ value: String) {
        var value = value
        // The prompt is kilobytes of text with a few characters to escape: copy the runs between them whole.
        value.withUTF8 { utf8 in
            var run = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                escape(byte)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default: bytes += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]]
        }
    }

    public mutating func int(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// As `JSONEncoder` writes a `UUID`: its uppercase string.
    public mutating func uuid(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value.uuidString.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    public var data: Data { Data(bytes) }
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private static let hex = Array("0123456789abcdef".utf8)
}
