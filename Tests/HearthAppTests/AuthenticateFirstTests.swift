import Foundation
import HearthTestSupport
import Testing
import Yams

/// Credentials are checked before a route looks anything up: without them every signed-in route is a 401, whatever
/// the path and body name, so an answer can never tell an anonymous caller whether something exists.
@Suite struct AuthenticateFirstTests {
    /// Every `/v1` operation the document says needs a person's token (each of its security alternatives names
    /// `bearer`), asked with the app's client key and no token.
    @Test func everySignedInRouteRefusesAMissingTokenBeforeLookingAnythingUp() async throws {
        let document = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let paths = try #require((try Yams.load(yaml: document) as? [String: Any])?["paths"] as? [String: [String: Any]])
        var operations: [(method: String, path: String)] = []
        for (path, item) in paths where path.hasPrefix("/v1/") {
            for (method, operation) in item {
                guard let security = (operation as? [String: Any])?["security"] as? [[String: Any]], !security.isEmpty,
                      security.allSatisfy({ $0["bearer"] != nil }) else { continue }
                operations.append((method, path))
            }
        }
        #expect(operations.count > 40)
        let signedInOperations = operations

        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            // Something real to name: a thread of a real person's.
            let person = try await Coachee.make(client, key: key)
            let existing = person.threadID
            let raw = RawHTTP(port: try #require(client.port))
            var wrong: [String] = []
            for (method, path) in signedInOperations.sorted(by: { $0.path + $0.method < $1.path + $1.method }) {
                let target = path.replacingOccurrences(of: #"\{[A-Za-z]*ID\}|\{id\}"#, with: existing, options: .regularExpression)
                    .replacingOccurrences(of: #"\{[A-Za-z]+\}"#, with: "x", options: .regularExpression)
                let response = try await raw.send(method.uppercased(), target, headers: RawHTTP.jsonHeaders(clientKey: key, token: nil),
                                                  body: Array(#"{"personaID":"\#(UUID())","content":"hi"}"#.utf8))
                if response.status != 401 || !response.text.contains("authentication_required") {
                    wrong.append("\(method.uppercased()) \(path): \(response.status) \(response.text.prefix(120))")
                }
            }
            #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
        }
    }

    /// The oracle the probe found: a thread for a persona, asked without a token, answered 404 for a persona that
    /// does not exist and 401 for one that does.
    @Test func aPersonasExistenceIsNotAnsweredWithoutAToken() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let (real, creator) = try await client.livePersona(key: key)
            // With a token the live one is found: the refusal below is about the token, not the persona.
            let signedIn = try await client.call(.post, "/v1/threads", clientKey: key, token: creator.accessToken, json: ["personaID": real])
            #expect(signedIn.status == .created, "\(signedIn.text)")
            for personaID in [real, UUID().uuidString] {
                let response = try await client.call(.post, "/v1/threads", clientKey: key, json: ["personaID": personaID])
                #expect(response.status == .unauthorized)
                #expect(response.errorCode == "authentication_required")
            }
        }
    }
}
