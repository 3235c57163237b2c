import NIOCore

/// One event of a `text/event-stream` response we send.
public struct ServerSentEvent: Sendable, Equatable {
    /// Lets a reconnecting client say where it got to (`Last-Event-ID`).
    public let id: Int
    public let event: String
    /// One line of JSON.
    public let data: String

    public init(id: Int, event: String, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    public func write(into buffer: inout ByteBuffer) {
        buffer.writeString("id: \(id)\nevent: \(event)\ndata: \(data)\n\n")
    }
}
