import Foundation
import HearthTestSupport
import HummingbirdTesting
import MockLLM
import Testing

/// When memory is written: at session end, on request, after 30 idle minutes, in-session past 15 messages;
/// always by a background job, sealed, and each session counted once.
@Suite struct MemoryJobTests {
    static func say(_ client: any TestClientProtocol, _ me: Coachee, _ texts: [String]) async throws {
        for text in texts {
            let answer = try await client.call(.post, me.messagesPath, clientKey: me.key, token: me.token, json: ["content": text])
            #expect(answer.status == .ok, "\(answer.text)")
        }
    }

    static func list(_ client: any TestClientProtocol, _ me: Coachee, _ path: String) async throws -> [[String: Any]] {
        let response = try await client.call(.get, "/v1/me/memory/" + path, clientKey: me.key, token: me.token)
        #expect(response.status == .ok, "\(response.text)")
        return response[path.split(separator: "?")[0].description] as? [[String: Any]] ?? []
    }

    @Test func endingASessionWritesItsSummaryAndFactsSealedOnce() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key, domain: "career")
            try await Self.say(client, me, [
                "My manager just told me I lack strategic thinking and I'm stung.",
                "In the planning meeting I stayed quiet even though I disagreed.",
            ])
            #expect(try await hearth.adminCount("memory_summaries") == 0, "nothing is written while the session is open")
            let ended = try await client.call(.post, "/v1/threads/\(me.threadID)/end-session", clientKey: me.key, token: me.token)
            #expect(ended.status == .accepted)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done'", equals: 1))

            let summaries = try await Self.list(client, me, "summaries")
            #expect(summaries.count == 1)
            let summary = try #require(summaries.first?["summary"] as? [String: Any])
            #expect((summary["topics"] as? [String])?.first == "staying quiet when disagreeing")
            #expect(summary["emotionalArc"] as? String == "stung throughout")
            #expect(summaries.first?["domain"] as? String == "career")
            #expect(summaries.first?["kind"] as? String == "session")

            let facts = try await Self.list(client, me, "facts")
            let theme = try #require(facts.first { $0["category"] as? String == "theme" })
            #expect((theme["content"] as? [String: Any])?["text"] as? String == "Stays silent when they disagree with a direction")
            #expect(theme["mentionCount"] as? Int == 1)
            #expect(theme["confidence"] as? Double == 0.5)
            #expect(theme["sourceThreadIDs"] as? [String] == [me.threadID.uppercased()])
            #expect(theme["domains"] as? [String] == ["career"])
            #expect(facts.contains { ($0["content"] as? [String: Any])?["text"] as? String == "Their manager told them they lack strategic thinking" })

            // Sealed at rest: neither the summary nor the facts are readable in the database.
            #expect(try await hearth.adminCount("memory_summaries WHERE position('strategic' IN encode(summary_ciphertext, 'escape')) > 0") == 0)
            #expect(try await hearth.adminCount("memory_facts WHERE position('silent' IN encode(fact_ciphertext, 'escape')) > 0") == 0)
            #expect(try await hearth.adminCount("memory_threads WHERE NOT open") == 1)

            // Ending again with nothing new writes nothing (the job runs, finds the session summarized).
            _ = try await client.call(.post, "/v1/threads/\(me.threadID)/end-session", clientKey: me.key, token: me.token)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.summarize' AND state = 'done'", equals: 2))
            #expect(try await hearth.adminCount("memory_summaries") == 1)

            // Another user's thread, or none: 404, nothing queued.
            let stranger = try await client.anonymous(clientKey: key)
            let foreign = try await client.call(.post, "/v1/threads/\(me.threadID)/summarize", clientKey: key, token: stranger.accessToken)
            #expect(foreign.status == .notFound)
        }
    }

    @Test func aLongSessionIsSummarizedInPartsAndTheSessionSummaryReplacesThem() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant(settings: .init(promptDebug: true))
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            try await Self.say(client, me, ["I stayed quiet in standup again."] + (1...7).map { "Another thought, number \($0), about my week." })
            // 8 exchanges = 16 messages > 15: the oldest 6 are summarized, the last 10 stay in full.
            #expect(try await hearth.eventually("memory_summaries WHERE kind = 'partial'", equals: 1))
            #expect(try await hearth.adminCount("memory_summaries WHERE kind = 'partial' AND through_seq - from_seq = 5") == 1)
            let preview = try await client.call(.post, "/v1/threads/\(me.threadID)/prompt-preview", clientKey: key, token: me.token, json: ["content": "And so?"])
            let sections = (preview["sections"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
            #expect(sections.contains("Earlier in this conversation"), "\(sections)")

            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done'", equals: 1))
            _ = try await client.call(.post, "/v1/threads/\(me.threadID)/summarize", clientKey: key, token: me.token)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done'", equals: 2))
            #expect(try await hearth.adminCount("memory_summaries WHERE kind = 'partial'") == 0)
            #expect(try await hearth.adminCount("memory_summaries WHERE kind = 'session'") == 1)
            // Extracted twice from one session, the theme still counts one mention.
            #expect(try await hearth.adminCount("memory_facts WHERE category = 'theme' AND mention_count = 1") == 1)
        }
    }

    /// The in-session summary is queued when the unsummarized count reaches 16, 32, 48…: not tried again on every
    /// turn while it waits (migration 0029), and queued again eight turns after one that ended without running.
    @Test func theInSessionSummaryIsQueuedAtEachSixteenthMessage() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 0 }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            let summaries = "jobs WHERE kind = 'memory.summarize' AND payload->>'reason' = 'in_session'"
            try await Self.say(client, me, (1...7).map { "Thought \($0) about my week." })
            #expect(try await hearth.adminCount(summaries) == 0, "14 messages: not yet")
            try await Self.say(client, me, ["Thought 8 about my week."])
            #expect(try await hearth.adminCount(summaries + " AND state = 'pending'") == 1, "16 messages")
            // The job gives up without a summary: the next turns do not queue it again at once…
            try await hearth.admin("UPDATE jobs SET state = 'dead' WHERE kind = 'memory.summarize'")
            try await Self.say(client, me, (9...15).map { "Thought \($0) about my week." })
            #expect(try await hearth.adminCount(summaries + " AND state = 'pending'") == 0, "30 messages")
            // …the turn that brings the count to 32 does.
            try await Self.say(client, me, ["Thought 16 about my week."])
            #expect(try await hearth.adminCount(summaries + " AND state = 'pending'") == 1, "32 messages")
            #expect(try await hearth.adminCount(summaries) == 2)
        }
    }

    @Test func theIdleSweepEndsSessionsWithNoTurnForTheIdleTime() async throws {
        let hearth = try await TestHearth.make {
            $0.jobs.workers = 1
            $0.memoryWriting.idleAfter = .seconds(1)
        }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            let quiet = try await me.newThread(client)
            try await Self.say(client, me, ["Sunday evenings makes me anxious about the week."])
            _ = quiet // a thread with no turns is not a session
            try await Task.sleep(for: .milliseconds(1200))
            try await hearth.admin("INSERT INTO jobs (kind) VALUES ('memory.idle-sessions')")
            #expect(try await hearth.eventually("memory_summaries", equals: 1))
            #expect(try await hearth.eventually("memory_facts WHERE category = 'trigger'", equals: 1))
            #expect(try await hearth.adminCount("memory_threads") == 1)
        }
    }

    @Test func aContradictedFactIsSupersededNotOverwritten() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            try await Self.say(client, me, ["I work as a product designer."])
            _ = try await client.call(.post, "/v1/threads/\(me.threadID)/end-session", clientKey: key, token: me.token)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done'", equals: 1))
            let later = try await me.newThread(client)
            try await Self.say(client, later, ["Big news: I work as a design manager now."])
            _ = try await client.call(.post, "/v1/threads/\(later.threadID)/end-session", clientKey: key, token: me.token)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done'", equals: 2))

            let active = try await Self.list(client, me, "facts?category=identity")
            #expect(active.compactMap { ($0["content"] as? [String: Any])?["text"] as? String } == ["Works as design manager now"])
            let all = try await Self.list(client, me, "facts?category=identity&include_inactive=true")
            let old = try #require(all.first { ($0["content"] as? [String: Any])?["text"] as? String == "Works as product designer" })
            #expect(old["active"] as? Bool == false)
            #expect(old["validUntil"] != nil)
            #expect(old["supersededBy"] as? String == active.first?["id"] as? String)
        }
    }

    @Test func withAModelTheSummaryAndFactsAreItsValidatedJSONAndABadAnswerIsRetried() async throws {
        try await withMockedHearth(config: {
            $0.jobs.workers = 1
            $0.jobs.backoff = .milliseconds(100)
        }) { controls, hearth, key, _ in
            try await hearth.test { client in
                let me = try await Coachee.make(client, key: key)
                controls.scriptReplies([
                    "That sounds hard. What would speaking up look like?",
                    #"{"topics": ["speaking up"], "emotionalArc": "tense -> resolved", "keyInsight": "Silence is costing them", "followUps": [], "userQuote": "I froze"}"#,
                    "Here are the facts you asked for!",
                    #"{"facts": [{"op": "new", "category": "goal", "text": "Wants to speak up once in every design review"}]}"#,
                ])
                try await Self.say(client, me, ["I froze in the review again."])
                _ = try await client.call(.post, "/v1/threads/\(me.threadID)/end-session", clientKey: key, token: me.token)
                #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done' AND attempts = 2", equals: 1))
                let summary = try #require(try await Self.list(client, me, "summaries").first?["summary"] as? [String: Any])
                #expect(summary["keyInsight"] as? String == "Silence is costing them")
                let facts = try await Self.list(client, me, "facts")
                #expect(facts.compactMap { ($0["content"] as? [String: Any])?["text"] as? String } == ["Wants to speak up once in every design review"])
                #expect(controls.requestCount == 4)
            }
        }
    }

    @Test func aModelThatNeverAnswersTheJSONLeavesTheOfflineWritersMemoryOnTheLastAttempt() async throws {
        try await withMockedHearth(config: {
            $0.jobs.workers = 1
            $0.jobs.backoff = .milliseconds(10)
            $0.jobs.pollInterval = .milliseconds(20)
        }) { controls, hearth, key, _ in
            try await hearth.test { client in
                let me = try await Coachee.make(client, key: key)
                try await Self.say(client, me, [
                    "My manager just told me I lack strategic thinking and I'm stung.",
                    "In the planning meeting I stayed quiet even though I disagreed.",
                ])
                // From here on the mock answers its filler words, never JSON: each job asks the model five times.
                _ = try await client.call(.post, "/v1/threads/\(me.threadID)/end-session", clientKey: key, token: me.token)
                #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done' AND attempts = 5", equals: 1))
                #expect(try await hearth.adminCount("jobs WHERE kind = 'memory.summarize' AND state = 'done' AND attempts = 5") == 1)
                #expect(try await hearth.adminCount("jobs WHERE state = 'dead'") == 0)
                #expect(controls.requestCount == 2 + 5 + 5, "two turns, then five tries of each writing job")

                // What the offline writers make of what the person said (as in the first test of this suite).
                let summary = try #require(try await Self.list(client, me, "summaries").first?["summary"] as? [String: Any])
                #expect((summary["topics"] as? [String])?.first == "staying quiet when disagreeing")
                let facts = try await Self.list(client, me, "facts")
                #expect(facts.contains { ($0["content"] as? [String: Any])?["text"] as? String == "Stays silent when they disagree with a direction" })
            }
        }
    }

    @Test func aSummaryQueuedForAThreadSinceDeletedEndsDoneNotDead() async throws {
        let hearth = try await TestHearth.make {
            $0.jobs.workers = 1
            $0.jobs.backoff = .milliseconds(10)
            $0.jobs.pollInterval = .milliseconds(20)
        }
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            try await Self.say(client, me, ["Sunday evenings make me anxious about the week."])
            _ = try await client.call(.delete, "/v1/threads/\(me.threadID)", clientKey: key, token: me.token)
            // The summary the session's end queued, still waiting when the thread went (queued here by hand).
            try await hearth.admin("""
                INSERT INTO jobs (kind, tenant_id, payload) VALUES ('memory.summarize', '\(tenant.id)',
                    jsonb_build_object('userID', '\(me.grant.user.id)', 'threadID', '\(me.threadID)', 'reason', 'ended'))
                """)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.summarize' AND state = 'done'", equals: 1, timeout: .seconds(20)))
            #expect(try await hearth.adminCount("jobs WHERE state = 'dead'") == 0)
            #expect(try await hearth.adminCount("memory_threads") == 0)
        }
    }

    @Test func summariesOlderThan90DaysAreArchivedOutOfPromptsButStayTheUsers() async throws {
        let hearth = try await TestHearth.make { $0.jobs.workers = 1 }
        let (_, key) = try await hearth.createTenant(settings: .init(promptDebug: true))
        try await hearth.test { client in
            let me = try await Coachee.make(client, key: key)
            try await Self.say(client, me, ["I keep putting it off, the portfolio update."])
            _ = try await client.call(.post, "/v1/threads/\(me.threadID)/end-session", clientKey: key, token: me.token)
            #expect(try await hearth.eventually("jobs WHERE kind = 'memory.extract-facts' AND state = 'done'", equals: 1))
            func sections() async throws -> [String] {
                let preview = try await client.call(.post, "/v1/threads/\(me.threadID)/prompt-preview", clientKey: key, token: me.token, json: ["content": "Hi"])
                return (preview["sections"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
            }
            #expect(try await sections().contains("Recent sessions (newest first)"))
            try await hearth.admin("UPDATE memory_summaries SET session_ended_at = now() - interval '91 days'")
            try await hearth.admin("INSERT INTO jobs (kind) VALUES ('memory.archive-summaries')")
            #expect(try await hearth.eventually("memory_summaries WHERE archived_at IS NOT NULL", equals: 1))
            #expect(try await !sections().contains("Recent sessions (newest first)"))
            #expect(try await Self.list(client, me, "summaries").isEmpty)
            #expect(try await Self.list(client, me, "summaries?include_archived=true").first?["archived"] as? Bool == true)
        }
    }
}
