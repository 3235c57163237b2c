import Foundation
import HearthTestSupport
import Testing

/// Writes that race `DELETE /v1/me` answer 401 or 404, never 500 (a probe of 20 rounds of a deletion beside 10
/// writes once gave 41 × 500 on foreign keys), and the deletion still removes everything.
@Suite struct DeletionRaceTests {
    @Test func writesRacingTheAccountsDeletionAreRefusedAndNothingIsLeft() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.liftLimits()
        try await hearth.test { client in
            var statuses: [Int: Int] = [:]
            var userIDs: [String] = []
            for _ in 0..<20 {
                let person = try await Coachee.make(client, key: key)
                userIDs.append(person.grant.user.id.uuidString.lowercased())
                let writes: [(method: String, path: String, body: String)] = [
                    ("POST", person.messagesPath, #"{"content":"I keep putting off my tax return."}"#),
                    ("POST", "/v1/threads", "{}"),
                    ("PATCH", "/v1/me/context", #"{"name":"Ana","goals":["sleep better"]}"#),
                    ("POST", "/v1/me/memory/facts", #"{"category":"goal","text":"Run a 10k in spring"}"#),
                    ("POST", "/v1/personas", #"{"name":"Sam","domain":"career","description":"A calm career coach.","tone":"warm","greeting":"Hi"}"#),
                    ("PATCH", "/v1/threads/\(person.threadID)", #"{"title":"Taxes"}"#),
                    ("POST", "/v1/threads/\(person.threadID)/end-session", "{}"),
                    ("DELETE", "/v1/me/context", ""),
                    ("POST", person.messagesPath, #"{"content":"And my inbox is overflowing."}"#),
                    ("POST", "/v1/threads", #"{"title":"Another"}"#),
                ]
                let raw = RawHTTP(port: try #require(client.port))
                let headers = RawHTTP.jsonHeaders(clientKey: key, token: person.token)
                let round = try await withThrowingTaskGroup(of: Int.self) { group in
                    group.addTask { try await raw.send("DELETE", "/v1/me", headers: headers).status }
                    for write in writes {
                        group.addTask { try await raw.send(write.method, write.path, headers: headers, body: Array(write.body.utf8)).status }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                for status in round { statuses[status, default: 0] += 1 }
            }
            #expect(statuses.keys.allSatisfy { $0 < 500 && $0 > 0 }, "statuses: \(statuses)")
            // Every deletion went through, and nothing a racing write made outlived it.
            let ids = userIDs.map { "'\($0)'" }.joined(separator: ",")
            for (table, column) in [("users", "id"), ("threads", "user_id"), ("messages", "user_id"), ("memory_facts", "user_id"),
                                    ("personas", "creator_id"), ("auth_sessions", "user_id")] {
                let left = try await hearth.adminCount("\(table) WHERE \(column)::text IN (\(ids))")
                #expect(left == 0, "\(left) rows of \(table) left behind")
            }
        }
    }
}
