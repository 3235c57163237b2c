import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection to a provider, carrying one request at a time (``ProviderTransport`` pools them).
///
/// A request's head, body and end go out in one write, and the response comes back in batches: whatever the
/// network delivered in one read (a head, body bytes, the end) is handed to the reading task at once, as one
/// wake-up, which is how a fast upstream's many events reach the turn as one delta.
final class ProviderConnection: Sendable {
    /// What arrived since the last ``receive()``.
    struct Received: Sendable {
        var head: HTTPResponseHead?
        var body: ByteBuffer?
        var ended = false
    }

    let channel: any Channel
    private let reader: ResponseReader

    init(channel: any Channel, reader: ResponseReader) {
        self.channel = channel
        self.reader = reader
    }

    var isActive: Bool { channel.isActive }

    /// Writes the request on the connection's own loop: three parts, one flush, one system call. At once when the
    /// caller runs on that loop (EventLoopExecutors), else handed to it.
    func send(_ head: HTTPRequestHead, body: ByteBuffer) {
        reader.expectResponse()
        let channel = channel
        let write = {
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        if channel.eventLoop.inEventLoop { write() } else { channel.eventLoop.execute(write) }
    }

    /// Waits for the next part of the response. A connection failure is thrown only once everything received
    /// before it has been returned. Cancelling the waiting task closes the connection.
    func receive() async throws -> Received {
        try await withTaskCancellationHandler {
            try await reader.receive()
        } onCancel: {
            close()
        }
    }

    /// Closes the connection; a pending ``receive()`` fails.
    func close() {
        channel.close(promise: nil)
    }
}

/// The pipeline's last handler: collects the response's parts until the reading task takes them.
final class ResponseReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPClientResponsePart

    struct Closed: Error {}

    private struct State {
        var received = ProviderConnection.Received()
        var failure: (any Error)?
        var waiter: CheckedContinuation<ProviderConnection.Received, any Error>?
        /// What arrived since the last take, else the failure; `nil` while there is neither.
        mutating func take() -> Result<ProviderConnection.Received, any Error>? {
            if received.head != nil || received.body != nil || received.ended {
                defer { received = .init() }
                return .success(received)
            }
            return failure.map { .failure($0) }
        }
    }

    private let state = NIOLockedValueBox(State())

    /// Resets what the previous exchange left (nothing, when it was read to its end).
    func expectResponse() {
        state.withLockedValue { $0.received = .init() }
    }

    func receive() async throws -> ProviderConnection.Received {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<ProviderConnection.Received, any Error>? = state.withLockedValue { state in
                guard let ready = state.take() else {
                    state.waiter = continuation
                    return nil
                }
                return ready
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        let ended: Bool = state.withLockedValue { state in
            switch part {
            case .head(let head):
                state.received.head = head
            case .body(var bytes):
                if state.received.body == nil {
                    state.received.body = bytes
                } else {
                    state.received.body!.writeBuffer(&bytes)
                }
            case .end:
                state.received.ended = true
            }
            return state.received.ended
        }
        // The end is handed over at once: the connection is free for the next request from then on.
        if ended { wake() }
    }

    /// One wake-up per read, carrying everything that read decoded.
    func channelReadComplete(context: ChannelHandlerContext) {
        wake()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(Closed())
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        state.withLockedValue { state in
            if state.failure == nil { state.failure = error }
        }
        wake()
    }

    private func wake() {
        let ready: (CheckedContinuation<ProviderConnection.Received, any Error>, Result<ProviderConnection.Received, any Error>)? =
            state.withLockedValue { state in
                guard let waiter = state.waiter, let ready = state.take() else { return nil }
                state.waiter = nil
                return (waiter, ready)
            }
        if let (waiter, result) = ready { waiter.resume(with: result) }
    }
}
