import Foundation
import HearthTestSupport
import Testing

/// Any bytes in any header, query parameter or path segment a route reads get a 4xx or a safe default, never a
/// crash or a 500. The server runs in this test's process, so a trap anywhere fails the whole run.
@Suite struct HostileInputTests {
    /// Values a parser meets from attackers and broken clients: empty, separators only, huge, invalid UTF-8,
    /// NUL and other controls, other scripts, numbers at the edges of their types.
    static let hostile: [[UInt8]] = [
        [], Array(";".utf8), Array(";;".utf8), Array(";,en".utf8), Array(",".utf8), Array(",,,;q=1".utf8),
        Array("*".utf8), Array("-".utf8), Array("en-".utf8), Array("q=0.5;en".utf8), Array(" ; , ; ".utf8),
        Array(repeating: UInt8(ascii: "a"), count: 7_000), Array(String(repeating: "en;q=0.1,", count: 700).utf8),
        [0xFF, 0xFE, 0xFD], [0xC3], Array("en-GB".utf8) + [0xC3, 0x28], [0x00], Array("en".utf8) + [0x00] + Array("-GB".utf8),
        [0x01, 0x7F], Array("еn-GB".utf8), Array("日本語".utf8), Array("ar-ЕГ".utf8), Array("🙂".utf8),
        Array("-1".utf8), Array("0".utf8), Array("99999999999999999999999999".utf8), Array("9223372036854775807".utf8),
        Array("-9223372036854775808".utf8), Array("1e309".utf8), Array("NaN".utf8), Array("00000000-0000-0000-0000-00000000000".utf8),
        Array("../../etc/passwd".utf8), Array("%00".utf8), Array("%FF".utf8),
    ]

    /// A value as it may appear in a request target: printable ASCII as is, every other byte percent-encoded
    /// (a raw space or control byte would end the request line).
    static func encoded(_ value: [UInt8]) -> [UInt8] {
        value.flatMap { byte -> [UInt8] in
            let safe = (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "#") && byte != UInt8(ascii: "&") && byte != UInt8(ascii: "?")
            return safe ? [byte] : Array(String(format: "%%%02X", byte).utf8)
        }
    }

    @Test func noHeaderQueryOrPathValueCrashesOrFails() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.createOperator("ops@example.com", role: .platformAdmin, tenantID: nil)
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            let sent = try await client.call(.post, person.messagesPath, clientKey: key, token: person.token, json: ["content": "Hello there"],
                                             headers: [.accept: "application/json"])
            #expect(sent.status == .ok, "\(sent.text)")
            let answerID = try #require((sent["assistantMessage"] as? [String: Any])?["id"] as? String)
            let operatorToken = try await client.operatorToken("ops@example.com")
            let raw = RawHTTP(port: try #require(client.port))
            let signedIn = [RawHTTP.header("X-Hearth-Client-Key", key), RawHTTP.header("Authorization", "Bearer \(person.token)")]
            let signedInJSON = RawHTTP.jsonHeaders(clientKey: key, token: person.token)
            let operatorHeaders = [RawHTTP.header("Authorization", "Bearer \(operatorToken)")]
            let answer = "\(person.messagesPath)/\(answerID)"
            var failures: [String] = []

            func check(_ label: String, _ method: String, _ target: [UInt8], _ headers: [[UInt8]], body: [UInt8] = []) async throws {
                let response = try await raw.send(method, target, headers: headers, body: body)
                if !(200..<500).contains(response.status) {
                    failures.append("\(label): \(response.status) \(response.text.prefix(200))")
                }
            }

            for value in Self.hostile {
                let shown = String(decoding: value.prefix(24), as: UTF8.self).debugDescription
                // Headers: sent as raw bytes, as a client may.
                let language = RawHTTP.header("Accept-Language", value)
                try await check("Accept-Language \(shown) /p", "GET", Array("/p/no-such-page".utf8), [language])
                try await check("Accept-Language \(shown) /v1/safety", "GET", Array("/v1/safety".utf8), [RawHTTP.header("X-Hearth-Client-Key", key), language])
                try await check("Accept-Language \(shown) preview", "POST", Array("/v1/threads/\(person.threadID)/prompt-preview".utf8),
                                signedInJSON + [language], body: Array(#"{"content":"I feel like ending it all"}"#.utf8))
                try await check("Accept-Language \(shown) events", "GET", Array("\(answer)/events".utf8), signedIn + [language])
                try await check("Last-Event-ID \(shown)", "GET", Array("\(answer)/events".utf8), signedIn + [RawHTTP.header("Last-Event-ID", value)])
                try await check("Idempotency-Key \(shown)", "POST", Array(person.messagesPath.utf8),
                                signedInJSON + [RawHTTP.header("Idempotency-Key", value)],
                                body: Array(#"{"content":"Hi"}"#.utf8))
                try await check("Authorization \(shown)", "GET", Array("/v1/me".utf8), [RawHTTP.header("X-Hearth-Client-Key", key),
                                                                                     RawHTTP.header("Authorization", Array("Bearer ".utf8) + value)])
                try await check("client key \(shown)", "POST", Array("/v1/auth/anonymous".utf8), [RawHTTP.header("X-Hearth-Client-Key", value)])
                try await check("Content-Type \(shown)", "POST", Array(person.messagesPath.utf8),
                                signedIn + [RawHTTP.header("Content-Type", value), RawHTTP.header("Accept", "application/json")],
                                body: Array(#"{"content":"Hi"}"#.utf8))

                // Query parameters, percent-encoded.
                let query = Self.encoded(value)
                for (path, names) in [
                    ("/v1/threads", ["limit", "cursor"]),
                    (person.messagesPath, ["limit", "cursor", "order"]),
                    ("/v1/safety", ["locale"]),
                    ("/v1/me/memory/facts", ["category", "include_inactive"]),
                    ("/v1/me/memory/summaries", ["include_archived"]),
                ] {
                    for name in names {
                        try await check("?\(name)=\(shown) \(path)", "GET", Array("\(path)?\(name)=".utf8) + query, signedIn)
                    }
                }
                try await check("?days=\(shown)", "GET", Array("/operator/v1/tenants/\(tenant.slug)/costs?days=".utf8) + query, operatorHeaders)

                // Path segments, percent-encoded.
                let segment = value.isEmpty ? Array("x".utf8) : query
                for (prefix, suffix) in [
                    ("/v1/threads/", ""), ("/v1/threads/", "/messages"), ("\(person.messagesPath)/", ""), ("\(person.messagesPath)/", "/events"),
                    ("\(person.messagesPath)/", "/retry"), ("/v1/personas/", ""), ("/v1/me/memory/facts/", ""),
                    ("/v1/me/memory/summaries/", ""), ("/v1/me/sessions/", ""), ("/v1/me/context/", ""), ("/v1/links/", ""),
                    ("/v1/links/", "/open"), ("/p/", ""), ("/p/", "/preview.png"), ("/p/", "/avatar"), ("/assets/", ""),
                    ("/webhooks/appstore/", ""), ("/operator/v1/tenants/", "/costs"), ("/operator/v1/tenants/\(tenant.slug)/personas/", ""),
                    ("/operator/v1/tenants/\(tenant.slug)/billing/plans/", ""),
                ] {
                    let method = suffix == "/retry" || prefix.hasPrefix("/webhooks") ? "POST" : prefix == "/v1/me/sessions/" ? "DELETE" : "GET"
                    try await check("path \(prefix)\(shown)\(suffix)", method, Array(prefix.utf8) + segment + Array(suffix.utf8),
                                    prefix.hasPrefix("/operator") ? operatorHeaders : signedIn, body: method == "POST" ? Array("{}".utf8) : [])
                }
            }
            #expect(failures.isEmpty, "\(failures.count) answers were not 2xx–4xx:\n\(failures.prefix(40).joined(separator: "\n"))")
            // Still serving.
            #expect(try await client.call(.get, "/healthz").status == .ok)
        }
    }
}
