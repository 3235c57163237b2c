import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// A request NIO's parser refuses (a request line or headers over 80 KiB, bytes that are not HTTP) gets the API's
/// JSON error shape, as every other refusal does, instead of Hummingbird's empty 400; then the connection closes,
/// since what follows on it cannot be read either. Added to each connection after the HTTP codec.
final class ParseErrorAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard !answered else { return }
        answered = true
        let refusal = APIError.badRequest("bad_request", "The request could not be read as HTTP (a request line or headers over 80 KiB, say).")
        let json = refusal.body
        var fields = refusal.responseHeaders
        fields[.connection] = "close"
        fields[.contentLength] = String(json.readableBytes)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: refusal.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(json)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
