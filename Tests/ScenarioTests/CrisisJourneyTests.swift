import Foundation
import HearthTestSupport
import HummingbirdTesting
import Testing

/// Journey 4 — James, 26, a recent graduate in Chicago: three weeks of career coaching, then on a bad night a
/// message the coach recognises as a crisis; resources shown at once, warmly; a week later he is back for career
/// coaching and the coach picks up where they left off.
@Suite struct CrisisJourneyTests {
    @Test func jamesGetsResourcesOnABadNightAndCoachingResumesAWeekLater() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant(settings: .init(promptDebug: true))
        try await hearth.test { client in
            let james = try await Person(client, hearth, key: key)
            let profile = try await client.call(.patch, "/v1/me/context", clientKey: key, token: james.me.token, json: [
                "values": ["independence", "curiosity"], "goals": ["land a data analyst role"], "lifeSituation": "Recent graduate in Chicago",
            ])
            #expect(profile.status == .ok)

            // Three weeks of career coaching; no domain chosen, so the router places every message.
            for messages in [
                ["I've sent out thirty applications for analyst jobs and only heard back from two."],
                ["I have a second-round interview at a fintech startup next week and I freeze on SQL questions."],
                ["The fintech recruiter said my case study answers ramble. How do I structure them?"],
            ] {
                let session = try await james.session(messages)
                #expect(session.allSatisfy { $0.first("crisis") == nil })
            }
            let routed = try await hearth.adminString("SELECT string_agg(coalesce(domain, '-'), ',' ORDER BY seq) FROM messages WHERE role = 'user'")
            #expect(routed == "career,career,career", "\(routed ?? "")")

            // A bad night.
            let night = try await james.me.newThread(client)
            let (_, events) = try await night.sse.events(.POST, night.messagesPath,
                                                         json: ["content": "I don't see the point of anything anymore. Nothing I do matters."])
            // The resources come first, before a word of the answer.
            #expect(Array(events.names.prefix(2)) == ["start", "crisis"], "\(events.names)")
            let crisis = try #require(events.first("crisis"))
            #expect(crisis["kind"] as? String == "suicidal")
            let names = (crisis["resources"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            #expect(names.starts(with: ["988 Suicide & Crisis Lifeline", "Crisis Text Line"]))
            // The answer is warm, honest about the limits of a coaching tool, names the help and stays.
            let answer = events.text
            #expect(answer.hasPrefix("I hear you, and what you're feeling sounds really heavy."))
            #expect(answer.contains("you deserve to talk to someone trained for exactly this"))
            #expect(answer.contains("988") && answer.contains("Text HOME to 741741"))
            #expect(answer.contains("I'm still here with you."))
            #expect(events.first("insight") == nil && events.last?.event == "done")
            #expect(try await hearth.adminCount("crisis_events WHERE kind = 'suicidal'") == 1)

            // A week later (the crisis is a week old), James comes back for career coaching.
            try await hearth.admin("UPDATE threads SET crisis_at = crisis_at - interval '7 days' WHERE crisis_at IS NOT NULL")
            try await hearth.admin("UPDATE crisis_events SET created_at = created_at - interval '7 days'")
            let back = "I'm back. The fintech startup invited me to the final round on Thursday. Can we prepare?"
            let returning = try await james.me.newThread(client)
            let preview = try await client.call(.post, "/v1/threads/\(returning.threadID)/prompt-preview", clientKey: key,
                                                token: james.me.token, json: ["content": back])
            let system = try #require(preview["system"] as? String)
            #expect(preview["domain"] as? String == "career")
            #expect(!system.contains("Crisis support"))
            #expect(system.contains("- Domain: Career"))
            #expect(system.contains("Recent graduate in Chicago"))

            let (_, resumed) = try await returning.sse.events(.POST, returning.messagesPath, json: ["content": back])
            #expect(resumed.first("crisis") == nil)
            #expect(!resumed.text.contains("beyond what I can help with"))
            // Continuity: what he worked on before the bad night is remembered and brought forward.
            let memory = try #require(resumed.first("memory"), "\(resumed.names)")
            let labels = (memory["items"] as? [[String: Any]])?.compactMap { $0["label"] as? String } ?? []
            #expect(labels.contains { $0.lowercased().contains("fintech") }, "\(labels)")
            // What he wrote in crisis never became a memory.
            let facts = try await james.get("/v1/me/memory/facts")["facts"] as? [[String: Any]] ?? []
            #expect(!facts.compactMap(text).contains { $0.lowercased().contains("point of anything") })
        }
        #expect(try await hearth.adminCount("crisis_events") == 1)
    }
}
