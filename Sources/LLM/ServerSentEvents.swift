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
        // Lines are read as bytes: only a field's value becomes a `String` (a provider sends two lines a token).
        for index in pending.indices where pending[index] == UInt8(ascii: "\n") {
            var lineEnd = index
            if lineEnd > lineStart, pending[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if let event = handle(line: pending[lineStart..<lineEnd]) {
                events.append(event)
            }
            lineStart = index + 1
        }
        pending.removeFirst(lineStart)
        return events
    }

    /// Anything left when the body ends (a final event without its blank line).
    public mutating func finish() -> Event? {
        if !pending.isEmpty {
            _ = handle(line: pending[...])
            pending.removeAll()
        }
        return handle(line: [])
    }

    private mutating func handle(line: ArraySlice<UInt8>) -> Event? {
        if line.isEmpty {
            defer { eventName = nil; eventID = nil; dataLines = [] }
            guard !dataLines.isEmpty else { return nil }
            return Event(id: eventID, event: eventName, data: dataLines.joined(separator: "\n"))
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        if field.elementsEqual("data".utf8) {
            dataLines.append(String(decoding: value, as: UTF8.self))
        } else if field.elementsEqual("event".utf8) {
            eventName = String(decoding: value, as: UTF8.self)
        } else if field.elementsEqual("id".utf8) {
            eventID = String(decoding: value, as: UTF8.self)
        }
        return nil
    }
}
