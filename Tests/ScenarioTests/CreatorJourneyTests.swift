import Foundation
import HearthTestSupport
import HummingbirdTesting
import Testing

/// Journey 3 — Aisha, 31, a certified career coach: she builds an AI version of her "3P Framework", it is
/// approved, and she shares the link. A chat app fetches its preview; three people tap it (the page in their
/// browser, then the app), two start a conversation, and one comes back the next day for a second session. Her
/// link's counts say exactly that.
@Suite struct CreatorJourneyTests {
    @Test func aishaSharesHerCoachAndTheCountsAreRight() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let aisha = try await client.anonymous(clientKey: key)
            let created = try await client.call(.post, "/v1/personas", clientKey: key, token: aisha.accessToken, json: [
                "name": "Aisha's Career Coach", "domain": "career", "creatorName": "Aisha Khan",
                "description": "Career transitions with the 3P Framework: positioning, proof, pitch.",
                "tone": "warm but direct", "methodology": "The 3P Framework: positioning first, then proof, then the pitch.",
                "personality": "Encouraging, practical, allergic to vague goals.", "greeting": "Hi, I'm Aisha's coach. What move are you planning?",
            ])
            let personaID = try #require(created["id"] as? String)
            let submitted = try await client.call(.post, "/v1/personas/\(personaID)/submit", clientKey: key, token: aisha.accessToken)
            #expect(submitted["status"] as? String == "approved")
            let slug = try #require(try await client.call(.post, "/v1/personas/\(personaID)/links", clientKey: key, token: aisha.accessToken)["slug"] as? String)

            // Pasted into a group chat, the link is unfurled: the preview fetcher reads the page and its image.
            let unfurled = try await client.browse("/p/\(slug)", headers: [.userAgent: "WhatsApp/2.24.1 i"])
            #expect(unfurled.text.contains(#"<meta property="og:title" content="Aisha&#39;s Career Coach · Career coach">"#))
            #expect(try await client.browse("/p/\(slug)/preview.png", headers: [.userAgent: "WhatsApp/2.24.1 i"]).status == .ok)
            // Three people tap it: the page opens in their browser, then the app opens from it.
            var people: [Grant] = []
            for _ in 0..<3 {
                #expect(try await client.browse("/p/\(slug)").text.contains("<h1>Aisha&#39;s Career Coach</h1>"))
                let person = try await client.anonymous(clientKey: key)
                #expect(try await client.call(.post, "/v1/links/\(slug)/open", clientKey: key)["name"] as? String == "Aisha's Career Coach")
                people.append(person)
            }
            // Two start a conversation.
            var threads: [String] = []
            for person in people.prefix(2) {
                let started = try await client.call(.post, "/v1/links/\(slug)/start", clientKey: key, token: person.accessToken)
                #expect(started.status == .created)
                let thread = try #require(started["threadID"] as? String)
                let answer = try await client.call(.post, "/v1/threads/\(thread)/messages", clientKey: key, token: person.accessToken,
                                                   json: ["content": "I want to move from teaching into UX research."])
                #expect(answer.status == .ok)
                threads.append(thread)
            }
            // One comes back the next day for a second session.
            _ = try await hearth.adminString("UPDATE messages SET created_at = created_at - interval '1 day' WHERE thread_id = '\(threads[0])' RETURNING 1")
            _ = try await hearth.adminString("UPDATE persona_link_starts SET started_at = started_at - interval '1 day' WHERE thread_id = '\(threads[0])' RETURNING 1")
            let back = try await client.call(.post, "/v1/links/\(slug)/start", clientKey: key, token: people[0].accessToken)
            #expect(back.status == .ok && back["threadID"] as? String == threads[0])
            let second = try await client.call(.post, "/v1/threads/\(threads[0])/messages", clientKey: key, token: people[0].accessToken,
                                               json: ["content": "I rewrote my portfolio intro like we said. Can we work on the pitch?"])
            #expect(second.status == .ok)
            // The other one sends a second message in the same sitting: not a return.
            _ = try await client.call(.post, "/v1/threads/\(threads[1])/messages", clientKey: key, token: people[1].accessToken,
                                      json: ["content": "And how do I explain the career change in one sentence?"])

            let links = try await client.call(.get, "/v1/personas/\(personaID)/links", clientKey: key, token: aisha.accessToken)
            let stats = try #require((links["links"] as? [[String: Any]])?.first?["stats"] as? [String: Any])
            #expect(stats["appOpens"] as? Int == 3)
            #expect(stats["starts"] as? Int == 2)
            #expect(stats["returns"] as? Int == 1)
            #expect(stats["clicks"] as? Int == 3)
        }
    }
}
