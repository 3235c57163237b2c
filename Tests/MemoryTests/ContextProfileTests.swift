import Foundation
import HearthTestSupport
import HummingbirdTesting
import Testing

/// `/v1/me/context` over real HTTP against a real Postgres.
@Suite struct ContextProfileTests {
    static let path = "/v1/me/context"

    @Test func theProfileIsEditedPartiallyViewedAndDeletedFieldByFieldOrWhole() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let user = try await client.anonymous(clientKey: key)
            let empty = try await client.call(.get, Self.path, clientKey: key, token: user.accessToken)
            #expect(empty.status == .ok)
            #expect((empty["profile"] as? [String: Any])?.isEmpty == true)
            #expect(empty["setupPrompt"] as? Bool == false)

            let set = try await client.call(.patch, Self.path, clientKey: key, token: user.accessToken, json: [
                "values": ["honesty", " growth ", "honesty", ""], "goals": ["sound strategic in reviews"],
                "lifeSituation": "Product designer in Austin, new manager", "communicationStyle": "direct", "age": 28,
                "preferredSessionTimes": ["evening"],
            ])
            #expect(set.status == .ok)
            var profile = try #require(set["profile"] as? [String: Any])
            #expect(profile["values"] as? [String] == ["honesty", "growth"]) // trimmed, blanks and repeats dropped
            #expect(profile["age"] as? Int == 28)
            #expect(profile["communicationStyle"] as? String == "direct")
            #expect(set["updatedAt"] is String)

            // A merge patch: null removes, absent fields stay.
            let patched = try await client.call(.patch, Self.path, clientKey: key, token: user.accessToken,
                                                rawBody: #"{"goals": null, "pronouns": "she/her", "recentWins": []}"#)
            profile = try #require(patched["profile"] as? [String: Any])
            #expect(profile["goals"] == nil)
            #expect(profile["pronouns"] as? String == "she/her")
            #expect(profile["recentWins"] == nil)
            #expect(profile["lifeSituation"] as? String == "Product designer in Austin, new manager")

            let oneGone = try await client.call(.delete, Self.path + "/values", clientKey: key, token: user.accessToken)
            #expect(oneGone.status == .ok)
            #expect((oneGone["profile"] as? [String: Any])?["values"] == nil)
            #expect(try await client.call(.delete, Self.path + "/shoeSize", clientKey: key, token: user.accessToken).status == .notFound)

            // Another user of the same tenant sees their own (empty) profile.
            let other = try await client.anonymous(clientKey: key)
            #expect((try await client.call(.get, Self.path, clientKey: key, token: other.accessToken)["profile"] as? [String: Any])?.isEmpty == true)

            #expect(try await client.call(.delete, Self.path, clientKey: key, token: user.accessToken).status == .noContent)
            let gone = try await client.call(.get, Self.path, clientKey: key, token: user.accessToken)
            #expect((gone["profile"] as? [String: Any])?.isEmpty == true)
        }
    }

    @Test func atRestTheProfileIsCiphertextAndGoesWithTheAccount() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let user = try await client.anonymous(clientKey: key)
            _ = try await client.call(.patch, Self.path, clientKey: key, token: user.accessToken,
                                      json: ["lifeSituation": "Caring for my father after his stroke", "currentStressors": ["thesis deadline"]])
            #expect(try await hearth.adminCount("context_profiles WHERE profile_ciphertext IS NOT NULL") == 1)
            #expect(try await hearth.adminCount("context_profiles WHERE position('stroke' IN encode(profile_ciphertext, 'escape')) > 0 OR position('thesis' IN encode(profile_ciphertext, 'escape')) > 0") == 0)
            #expect(try await client.call(.delete, "/v1/me", clientKey: key, token: user.accessToken).status == .noContent)
            #expect(try await hearth.adminCount("context_profiles") == 0)
        }
    }

    @Test(arguments: [
        (#"{"shoeSize": 44}"#, "shoeSize is not a context field"),
        (#"{"age": "twenty"}"#, "age must be a whole number"),
        (#"{"age": 7}"#, "age must be between 13 and 120"),
        (#"{"communicationStyle": "harsh"}"#, "communicationStyle must be one of direct, gentle, socratic, validating"),
        (#"{"preferredSessionTimes": ["noon"]}"#, "preferredSessionTimes must be a list of afternoon, evening, morning, night"),
        (#"{"values": "honesty"}"#, "values must be a list of strings"),
        (#"{"goals": [1, 2]}"#, "Context fields are strings, whole numbers, lists of strings, or null"),
        (#"{"name": true}"#, "Context fields are strings, whole numbers, lists of strings, or null"),
        (#"{"lifeSituation": "\#(String(repeating: "x", count: 1001))"}"#, "lifeSituation must be at most 1000 characters"),
        (#"{"topicsToAvoid": [\#((0..<21).map { "\"t\($0)\"" }.joined(separator: ","))]}"#, "topicsToAvoid must be a list of at most 20 items"),
        (#"["values"]"#, nil),
        ("not json", nil),
    ])
    func badPatchesAreRejectedAndChangeNothing(_ body: String, _ message: String?) async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let user = try await client.anonymous(clientKey: key)
            _ = try await client.call(.patch, Self.path, clientKey: key, token: user.accessToken, json: ["name": "Priya"])
            let response = try await client.call(.patch, Self.path, clientKey: key, token: user.accessToken,
                                                 rawBody: body)
            #expect((400...499).contains(response.status.code), "\(response.status) \(response.text)")
            if let message {
                let error = try #require(response["error"] as? [String: Any])
                #expect((error["message"] as? String)?.contains(message) == true, "\(response.text)")
            }
            let profile = try #require(try await client.call(.get, Self.path, clientKey: key, token: user.accessToken)["profile"] as? [String: Any])
            #expect(profile.count == 1 && profile["name"] as? String == "Priya")
        }
    }

    @Test func afterTheFirstCompletedSessionTheAppIsToldToPromptForContextUntilItIsSetOrDismissed() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            for setsUp in [true, false] {
                let user = try await client.anonymous(clientKey: key)
                #expect(try await client.call(.get, Self.path, clientKey: key, token: user.accessToken)["setupPrompt"] as? Bool == false)
                let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: user.accessToken, json: [:])
                let threadID = try #require(thread["id"] as? String)
                let answer = try await client.call(.post, "/v1/threads/\(threadID)/messages", clientKey: key, token: user.accessToken,
                                                   json: ["content": "My manager says I lack strategic thinking."])
                #expect(answer.status == .ok)
                #expect(try await client.call(.get, Self.path, clientKey: key, token: user.accessToken)["setupPrompt"] as? Bool == true)
                if setsUp {
                    let set = try await client.call(.patch, Self.path, clientKey: key, token: user.accessToken, json: ["values": ["craft"]])
                    #expect(set["setupPrompt"] as? Bool == false)
                } else {
                    let dismissed = try await client.call(.post, Self.path + "/setup-prompt/dismiss", clientKey: key, token: user.accessToken)
                    #expect(dismissed.status == .noContent)
                }
                #expect(try await client.call(.get, Self.path, clientKey: key, token: user.accessToken)["setupPrompt"] as? Bool == false)
            }
        }
    }
}
