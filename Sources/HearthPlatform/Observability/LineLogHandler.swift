import Foundation
import Logging
import NIOConcurrencyHelpers

/// The process's log handler: one line per event on stdout, a JSON object (production: what log collectors
/// want) or readable text (development).
///
/// Every request writes its access line through here, and every middleware adds a metadata key, so both are
/// cheap: a key is only stored when it is set (swift-log's `StreamLogHandler` re-rendered all of its metadata
/// on every set, 1.3% of a chat turn's CPU), and a line is formatted into bytes by hand and written with one
/// `write(2)` (the JSON handler this replaced, with `JSONSerialization` and `ISO8601DateFormatter`, cost
/// production 0.4 ms of CPU a turn: docs/performance-notes.md).
///
/// Only ids, codes and counts are ever logged as metadata (see docs/security.md); this handler does not try to
/// scrub, it formats. Text lines escape their values as JSON strings do (without the quotes), so one event is
/// always one line.
public struct LineLogHandler: LogHandler {
    public enum Format: String, Sendable {
        case json, text
    }

    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    let label: String
    let format: Format
    let write: @Sendable ([UInt8]) -> Void

    public init(label: String, format: Format, write: @escaping @Sendable ([UInt8]) -> Void = LineLogHandler.standardOutput) {
        self.label = label
        self.format = format
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        let keys = fields.keys.sorted()
        let time = Self.timestamp()
        var line = JSONWriter(capacity: 256)
        switch format {
        case .json:
            line.raw(#"{"ts":""#)
            line.raw(time)
            line.raw(#"","level":"#)
            line.string(event.level.rawValue)
            line.raw(#","logger":"#)
            line.string(label)
            line.raw(#","message":"#)
            line.string(event.message.description)
            for key in keys where !Self.reserved.contains(key) {
                line.raw(",")
                line.string(key)
                line.raw(":")
                Self.json(fields[key]!, into: &line)
            }
            line.raw("}\n")
        case .text:
            line.raw(time)
            line.raw(" ")
            line.escaped(event.level.rawValue)
            line.raw(" ")
            line.escaped(label)
            line.raw(": ")
            line.escaped(event.message.description)
            for key in keys {
                line.raw(" ")
                line.escaped(key)
                line.raw("=")
                line.escaped(fields[key]!.description)
            }
            line.raw(" [")
            line.escaped(event.source)
            line.raw("]\n")
        }
        write(line.bytes)
    }

    /// The object's own keys: metadata by the same name would make a second, ambiguous member.
    static let reserved: Set<String> = ["ts", "level", "logger", "message"]

    static func json(_ value: Logger.Metadata.Value, into line: inout JSONWriter) {
        switch value {
        case .string(let string): line.string(string)
        case .stringConvertible(let convertible): line.string(convertible.description)
        case .array(let array):
            line.raw("[")
            for (index, element) in array.enumerated() {
                if index > 0 { line.raw(",") }
                json(element, into: &line)
            }
            line.raw("]")
        case .dictionary(let dictionary):
            line.raw("{")
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { line.raw(",") }
                line.string(key)
                line.raw(":")
                json(dictionary[key]!, into: &line)
            }
            line.raw("}")
        }
    }

    /// UTC with milliseconds, `2026-11-29T03:17:13.042Z`.
    static func timestamp() -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = Array("0000-00-00T00:00:00.000Z".utf8)
        func put(_ value: Int, at end: Int) {
            var value = value
            var index = end
            repeat {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                index -= 1
            } while value > 0 && index >= 0
        }
        put(Int(parts.tm_year) + 1900, at: 3)
        put(Int(parts.tm_mon) + 1, at: 6)
        put(Int(parts.tm_mday), at: 9)
        put(Int(parts.tm_hour), at: 12)
        put(Int(parts.tm_min), at: 15)
        put(Int(parts.tm_sec), at: 18)
        put(now.tv_nsec / 1_000_000, at: 22)
        return text
    }

    /// Whole lines to stdout. The lock keeps lines longer than a pipe's atomic write from interleaving.
    public static let standardOutput: @Sendable ([UInt8]) -> Void = { line in
        outputLock.withLock {
            line.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return // stdout closed or full beyond repair: a log line is not worth failing a request
                    }
                }
            }
        }
    }

    private static let outputLock = NIOLock()
}
