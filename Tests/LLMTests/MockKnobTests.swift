import Hummingbird
import HTTPTypes
import HummingbirdTesting
import MockLLM
import NIOCore
import Testing

/// The mock's `X-Mock-*` headers: a value it cannot honour is a 400 naming the header, never a crash or a
/// silent default (a negative length used to bring the whole mock down).
@Suite struct MockKnobTests {
    static func post(_ client: some TestClientProtocol, _ headers: [String: String], body: String = #"{"stream":false,"messages":[]}"#)
        async throws -> (status: HTTPResponse.Status, text: String) {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        let response = try await client.execute(uri: "/v1/chat/completions", method: .post, headers: fields, body: ByteBuffer(string: body))
        return (response.status, String(buffer: response.body))
    }

    @Test func aKnobOutOfRangeOrUnreadableIsRefusedAndTheMockKeepsServing() async throws {
        let app = Application(router: MockLLMServer.buildRouter(controls: MockLLMControls(knobs: .init(responseTokens: 2))))
        try await app.test(.router) { client in
            let refused: [([String: String], String)] = [
                (["X-Mock-Tokens": "-5"], "X-Mock-Tokens must be a whole number from 0 to 100000."),
                (["X-Mock-Tokens": "99999999999"], "X-Mock-Tokens must be a whole number from 0 to 100000."),
                (["X-Mock-TTFT-Ms": "soon"], "X-Mock-TTFT-Ms must be a whole number from 0 to 600000."),
                (["X-Mock-End-Delay-Ms": "-1"], "X-Mock-End-Delay-Ms must be a whole number from 0 to 600000."),
                (["X-Mock-TPS": "nan"], "X-Mock-TPS must be 0 (all at once) or from 0.01 to 1000000."),
                (["X-Mock-TPS": "1e-12"], "X-Mock-TPS must be 0 (all at once) or from 0.01 to 1000000."),
                (["X-Mock-TPS": "-3"], "X-Mock-TPS must be 0 (all at once) or from 0.01 to 1000000."),
                (["X-Mock-Fault": "banana"], "X-Mock-Fault must be a status from 400 to 599, 429:N (Retry-After N), stall, disconnect:N or malformed:N."),
                (["X-Mock-Fault": "disconnect:abc"], "X-Mock-Fault must be a status from 400 to 599, 429:N (Retry-After N), stall, disconnect:N or malformed:N."),
                (["X-Mock-Fault": "302"], "X-Mock-Fault must be a status from 400 to 599, 429:N (Retry-After N), stall, disconnect:N or malformed:N."),
            ]
            for (headers, message) in refused {
                let answer = try await Self.post(client, headers)
                #expect(answer.status == .badRequest, "\(headers)")
                #expect(answer.text == #"{"error":{"type":"invalid_request_error","message":"\#(message)"}}"#, "\(headers)")
            }
            let notJSON = try await Self.post(client, [:], body: "{\"stream\":")
            #expect(notJSON.status == .badRequest)
            #expect(notJSON.text.contains("not a JSON object"))

            // Still serving, and the knobs in range are honoured.
            let answer = try await Self.post(client, ["X-Mock-Tokens": "3"])
            #expect(answer.status == .ok)
            #expect(answer.text.contains(#""content":"token0 token1 token2""#))
            #expect(try await Self.post(client, ["X-Mock-Fault": "429"]).status == .tooManyRequests)
        }
    }

    @Test func faultHeadersParseStrictly() {
        #expect(MockFault(header: "disconnect") == .disconnect(afterTokens: 0))
        #expect(MockFault(header: "disconnect:5") == .disconnect(afterTokens: 5))
        #expect(MockFault(header: "malformed:3") == .malformed(afterTokens: 3))
        #expect(MockFault(header: "stall") == .stall)
        #expect(MockFault(header: "503") == .status(503))
        #expect(MockFault(header: "429:2") == .rateLimited(retryAfterSeconds: 2))
        for junk in ["disconnect:", "disconnect:-1", "stall:2", "503:1", "429:", "429:-1", "", "malformed:x"] {
            #expect(MockFault(header: junk) == nil, "\(junk)")
        }
    }
}
