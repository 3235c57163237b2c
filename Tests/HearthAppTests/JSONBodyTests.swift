import Foundation
import HearthTestSupport
import Testing

/// Text in, text out: every JSON route reads its body the same way (`JSONBody`), so a NUL, bytes that are not
/// UTF-8 or a body of another media type get the same clear 4xx everywhere, and never reach the database.
@Suite struct JSONBodyTests {
    @Test func aNULInAnyTextFieldIsA422NamingTheField() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            let cases: [(method: String, path: String, body: String, field: String)] = [
                ("POST", person.messagesPath, #"{"content":"hello\u0000there"}"#, "content"),
                ("POST", "/v1/personas", #"{"name":"Sam\u0000","domain":"career"}"#, "name"),
                ("PATCH", "/v1/me/context", #"{"goals":["run\u0000"]}"#, "goals[0]"),
                ("PATCH", "/v1/threads/\(person.threadID)", #"{"title":"\u0000"}"#, "title"),
                ("POST", "/v1/threads", #"{"title":"a","domain":"\u0000"}"#, "domain"),
                ("POST", "/v1/auth/email/login", #"{"email":"a@b.co","password":"x\u0000y"}"#, "password"),
                ("POST", "/v1/me/memory/facts", #"{"category":"goal","text":"\u0000"}"#, "text"),
            ]
            let raw = RawHTTP(port: try #require(client.port))
            for item in cases {
                let response = try await raw.send(item.method, item.path, headers: RawHTTP.jsonHeaders(clientKey: key, token: person.token),
                                                  body: Array(item.body.utf8))
                #expect(response.status == 422, "\(item.method) \(item.path): \(response.status) \(response.text)")
                #expect(response.text.contains("validation_failed") && response.text.contains(item.field), "\(item.path): \(response.text)")
            }
            // An escaped backslash before u0000 is text, not a NUL.
            let literal = try await client.call(.post, person.messagesPath, clientKey: key, token: person.token,
                                                rawBody: #"{"content":"a path: C:\\u0000"}"#, headers: [.accept: "application/json"])
            #expect(literal.status == .ok, "\(literal.text)")
        }
    }

    @Test func bytesThatAreNotUTF8AreA400OnEveryRoute() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            let raw = RawHTTP(port: try #require(client.port))
            for (method, path, prefix) in [
                ("POST", person.messagesPath, #"{"content":""#), ("PATCH", "/v1/threads/\(person.threadID)", #"{"title":""#),
                ("POST", "/v1/personas", #"{"name":""#), ("PATCH", "/v1/me/context", #"{"name":""#),
            ] {
                let response = try await raw.send(method, path, headers: RawHTTP.jsonHeaders(clientKey: key, token: person.token),
                                                  body: Array(prefix.utf8) + [0x68, 0xFF, 0xC3, 0x28] + Array(#""}"#.utf8))
                #expect(response.status == 400, "\(path): \(response.status) \(response.text)")
                #expect(response.text.contains("not valid UTF-8"), "\(path): \(response.text)")
            }
            // Nothing was stored as replacement characters.
            #expect(try await hearth.adminCount("messages") == 0)
        }
    }

    @Test func aJSONRouteRefusesABodyOfAnotherMediaType() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"] {
                for (path, body) in [(person.messagesPath, #"{"content":"hi"}"#), ("/v1/threads", "{}"), ("/v1/auth/email/signup", #"{"email":"a@b.co","password":"long enough pass"}"#)] {
                    let response = try await client.call(.post, path, clientKey: key, token: path.hasPrefix("/v1/auth") ? nil : person.token, rawBody: body,
                                                         headers: [.contentType: contentType, .accept: "application/json"])
                    #expect(response.status == .unsupportedMediaType, "\(contentType) \(path): \(response.text)")
                    #expect(response.errorCode == "unsupported_media_type")
                }
            }
            // JSON with a charset, and merge-patch JSON, are JSON.
            #expect(try await client.call(.post, "/v1/threads", clientKey: key, token: person.token, rawBody: "{}",
                                          headers: [.contentType: "application/json; charset=utf-8"]).status == .created)
            #expect(try await client.call(.patch, "/v1/me/context", clientKey: key, token: person.token, rawBody: #"{"name":"Ana"}"#,
                                          headers: [.contentType: "application/merge-patch+json"]).status == .ok)
        }
    }
}
