import Foundation
import HearthTestSupport
import HummingbirdTesting
import Testing

/// The Coach App's memory journeys end to end over HTTP with the offline model: the events the app renders
/// and the memory stored, not the coach's exact words.
@Suite struct JourneyTests {
    /// Journey 1 — Priya: manager feedback, context setup after the first session, the callback three days
    /// later, and the pattern insight at session 5 (the third time she describes staying silent).
    @Test func priyaIsRememberedAndSeesHerPatternTheThirdTime() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let priya = try await Person(client, hearth, key: key)

            // Session 1, 10:47pm on a Tuesday: nothing remembered yet, so no memory or insight events.
            let first = try await priya.session(domain: "career", [
                "My manager just told me I lack strategic thinking and I don't even know what that means in my context.",
            ])
            #expect(first[0].first("memory") == nil && first[0].first("insight") == nil)
            // After her first completed session the app offers to remember what matters (FR11).
            #expect(try await priya.get("/v1/me/context")["setupPrompt"] as? Bool == true)
            let setup = try await client.call(.patch, "/v1/me/context", clientKey: key, token: priya.me.token, json: [
                "values": ["craft", "honesty"], "goals": ["be seen as strategic at work"], "lifeSituation": "Product designer in Austin",
            ])
            #expect(setup.status == .ok && setup["setupPrompt"] as? Bool == false)
            let summaries = try await priya.get("/v1/me/memory/summaries")["summaries"] as? [[String: Any]] ?? []
            let tuesday = try #require(summaries.first?["id"] as? String)
            #expect(try await priya.facts("event").compactMap(text) == ["Their manager told them they lack strategic thinking"])

            // Three days later: the coach references Tuesday's feedback, and the app is told which memory it used.
            let second = try await priya.session(domain: "career", [
                "I have a big presentation tomorrow and I want to come across as strategic, not just tactical.",
            ])
            let recalled = try #require(second[0].first("memory"), "\(second[0].names)")
            let items = try #require(recalled["items"] as? [[String: Any]])
            #expect(items.contains { $0["kind"] as? String == "summary" && ($0["id"] as? String)?.lowercased() == tuesday.lowercased() })
            #expect(items.contains { $0["kind"] as? String == "fact" && ($0["label"] as? String)?.contains("strategic") == true })
            #expect(second[0].first("insight") == nil)

            // Sessions 3 and 4: staying quiet when she disagrees, twice.
            let third = try await priya.session(domain: "career", ["In the roadmap meeting I stayed quiet even though I disagreed with the direction."])
            let fourth = try await priya.session(domain: "career", ["I didn't speak up when the team picked the other design, again."])
            #expect(third[0].first("insight") == nil && fourth[0].first("insight") == nil)
            let pattern = try #require(try await priya.facts("theme").first)
            #expect(pattern["mentionCount"] as? Int == 2)

            // Session 5: the third time. The insight arrives as its own event, before the answer, once.
            let fifth = try await priya.session(domain: "career", [
                "Another meeting today where I kept quiet while they pushed a direction I disagreed with.",
                "Yes, I kept quiet because I didn't want to look difficult.",
            ])
            let insight = try #require(fifth[0].first("insight"), "\(fifth[0].names)")
            #expect(insight["kind"] as? String == "pattern")
            #expect(insight["occurrences"] as? Int == 3)
            #expect((insight["factId"] as? String)?.lowercased() == (pattern["id"] as? String)?.lowercased())
            #expect(fifth[0].names.firstIndex(of: "insight")! < fifth[0].names.firstIndex(of: "delta")!)
            #expect(fifth[1].first("insight") == nil, "an insight is surfaced once")
            let insights = try await priya.get("/v1/me/memory/insights")["insights"] as? [[String: Any]] ?? []
            #expect(insights.count == 1 && insights.first?["kind"] as? String == "pattern")
            #expect(try await priya.facts("theme").first?["mentionCount"] as? Int == 3)
            #expect((try await priya.facts("theme").first?["confidence"] as? Double ?? 0) > 0.65)
        }
    }

    /// Journey 2 — Derek: a set-up profile, sessions across leadership, career and fitness, the same worry in
    /// each — a cross-domain insight — and a strategy from one domain recalled in another.
    @Test func derekSeesOnePatternAcrossThreeDomainsAndAStrategyTravelsBetweenThem() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let derek = try await Person(client, hearth, key: key)
            let profile = try await client.call(.patch, "/v1/me/context", clientKey: key, token: derek.me.token, json: [
                "values": ["growth", "directness", "empathy"], "goals": ["become VP of Engineering", "improve 1:1s", "run a half marathon"],
            ])
            #expect(profile.status == .ok)

            let monday = try await derek.session(domain: "leadership", ["I don't want to let my team down in these 1:1s."])
            let wednesday = try await derek.session(domain: "career", ["Going for VP scares me because I'd hate letting my director down."])
            #expect(monday[0].first("insight") == nil && wednesday[0].first("insight") == nil)
            let thursday = try await derek.session(domain: "fitness", [
                "I push through long runs by focusing on the next mile marker, I don't want to let my running club down.",
            ])
            let insight = try #require(thursday[0].first("insight"), "\(thursday[0].names)")
            #expect(insight["kind"] as? String == "cross_domain")
            #expect(insight["domains"] as? [String] == ["leadership", "career", "fitness"])
            #expect(insight["occurrences"] as? Int == 3)
            let theme = try #require(try await derek.facts("theme").first)
            #expect(theme["domains"] as? [String] == ["leadership", "career", "fitness"])

            // A week later, in career coaching: the fitness strategy is brought forward.
            let review = try await derek.session(domain: "career", ["My performance review is next week and I need to get through the hard parts."])
            let items = try #require(review[0].first("memory")?["items"] as? [[String: Any]], "\(review[0].names)")
            #expect(items.contains { ($0["label"] as? String)?.contains("next mile marker") == true })
            #expect(review[0].first("insight") == nil)
            #expect(try await derek.facts("strategy").compactMap(text).contains("Gets through hard moments by focusing on the next mile marker"))
        }
    }
}
