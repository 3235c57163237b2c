import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 exchange written byte for byte over a plain socket: for hostile requests that no HTTP client will
/// send (invalid UTF-8 or a NUL in a header, a query of any bytes), so a test sees exactly what the server does
/// with them.
public struct RawHTTP: Sendable {
    public struct Response: Sendable {
        /// 0 when the server closed the connection without a status line.
        public let status: Int
        public let head: String
        public let body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }

        public func header(_ name: String) -> String? {
            head.split(separator: "\r\n").dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
    }

    public let port: Int
    /// How long a read may wait: past it the exchange ends with what arrived (status 0 if nothing did).
    public let timeoutSeconds: Int

    public init(port: Int, timeoutSeconds: Int = 60) {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    /// Sends `method target` with `headers` (each a raw `Name: value` line of any bytes) and `body`, with
    /// `Connection: close`, and reads the whole answer.
    public func send(_ method: String, _ target: [UInt8], headers: [[UInt8]] = [], body: [UInt8] = []) async throws -> Response {
        var request = Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n".utf8)
        for header in headers { request += header + Array("\r\n".utf8) }
        if !body.isEmpty { request += Array("Content-Length: \(body.count)\r\n".utf8) }
        request += Array("\r\n".utf8) + body
        let port = port
        let timeout = timeoutSeconds
        let finished = request
        // Blocking socket calls run on NIO's thread pool: on the two threads of Swift's cooperative pool they would
        // starve the server under test.
        let bytes = try await NIOThreadPool.singleton.runIfActive { try Self.exchange(finished, port: port, timeoutSeconds: timeout) }
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            return Response(status: 0, head: String(decoding: bytes, as: UTF8.self), body: [])
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var body = Array(bytes[(end + 4)...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = Self.dechunked(body) }
        return Response(status: status, head: head, body: body)
    }

    public func send(_ method: String, _ target: String, headers: [[UInt8]] = [], body: [UInt8] = []) async throws -> Response {
        try await send(method, Array(target.utf8), headers: headers, body: body)
    }

    /// A signed-in app's JSON request: its client key, the person's token (when there is one), a JSON body, a JSON
    /// answer (the send answers JSON rather than a stream).
    public static func jsonHeaders(clientKey: String, token: String?) -> [[UInt8]] {
        [header("X-Hearth-Client-Key", clientKey)] + (token.map { [header("Authorization", "Bearer \($0)")] } ?? [])
            + [header("Content-Type", "application/json"), header("Accept", "application/json")]
    }

    /// One header line: `name` and a value of any bytes.
    public static func header(_ name: String, _ value: [UInt8]) -> [UInt8] { Array("\(name): ".utf8) + value }
    public static func header(_ name: String, _ value: String) -> [UInt8] { header(name, Array(value.utf8)) }

    private static func exchange(_ request: [UInt8], port: Int, timeoutSeconds: Int) throws -> [UInt8] {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawHTTPError.socket(errno) }
        defer { close(socket) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RawHTTPError.socket(errno) }
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard written > 0 else { break }  // the server may answer and close before reading it all (413)
            sent += written
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            answer += buffer[..<count]
        }
        return answer
    }

    private static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\r")),
              let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16), size > 0,
              lineEnd + 2 + size <= bytes.count {
            output += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
            guard index < bytes.count else { break }
        }
        return output
    }
}

public enum RawHTTPError: Error { case socket(Int32) }
