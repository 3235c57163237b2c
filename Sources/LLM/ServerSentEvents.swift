import NIOCore

/// Incremental decoder for `text/event-stream` bodies (the providers' streaming format).
///
/// Bytes arrive in arbitrary chunks; complete events come out. Follows the WHATWG rules we rely on:
/// `id:`, `event:` and `data:` fields, multi-line data joined with `\n`, comments (`:`) ignored, an empty line
/// ends an event, `\r\n` or `\n` line ends.
public struct ServerSentEventDecoder: Sendable {
    public struct Event: Sendable, Equatable {
        public var id: String?
        public var event: String?
        public var data: String

        public init(id: String? = nil, event: String? = nil, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    private var pending: [UInt8] = []
    private var eventName: String?
    private var eventID: String?
    private var dataLines: [String] = []

    public init() {}

    public mutating func feed(_ buffer: ByteBuffer) -> [Event] {
        pending.append(contentsOf: buffer.readableBytesView)
        var events: [Event] = []
        var lineStart = 0
        var index = 0
        while index < pending.count {
            if pending[index] == UInt8(ascii: "\n") {
                var lineEnd = index
                if lineEnd > lineStart, pending[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                if let event = handle(line: String(decoding: pending[lineStart..<lineEnd], as: UTF8.self)) {
                    events.append(event)
                }
                lineStart = index + 1
            }
            index += 1
        }
        pending.removeFirst(lineStart)
        return events
    }

    /// Anything left when the body ends (a final event without its blank line).
    public mutating func finish() -> Event? {
        if !pending.isEmpty {
            let line = String(decoding: pending, as: UTF8.self)
            pending.removeAll()
            _ = handle(line: line)
        }
        return handle(line: "")
    }

    private mutating func handle(line: String) -> Event? {
        if line.isEmpty {
            defer { eventName = nil; eventID = nil; dataLines = [] }
            guard !dataLines.isEmpty else { return nil }
            return Event(id: eventID, event: eventName, data: dataLines.joined(separator: "\n"))
        }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "event": eventName = String(value)
        case "id": eventID = String(value)
        case "data": dataLines.append(String(value))
        default: break
        }
        return nil
    }
}
