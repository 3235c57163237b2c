import Foundation
import HearthTestSupport
import MockLLM
import Testing

/// A send's statements before the provider (decisions 0018 and 0023): the one that commits answers an idempotent
/// replay before admitting anyone, and the user's data key it seals with, remembered by the server, opens no door
/// its session check does not; the one that reads beside it leaves the question out of the history, whichever
/// commits first.
@Suite struct TurnBeginTests {
    @Test func aReplayWhileItsAnswerStreamsFollowsThatAnswerWithoutTakingAnotherSlot() async throws {
        // Three seconds of answer: the replay lands while it streams.
        try await withMockedHearth(.init(tokensPerSecond: 10, responseTokens: 30)) { _, hearth, key, _ in
            try await hearth.admin("UPDATE billing_plans SET concurrent_streams = 1")
            try await hearth.test { client in
                let coachee = try await Coachee.make(client, key: key)
                let sendKey = ("Idempotency-Key", "train-tunnel-7")
                let (_, first) = try await coachee.sse.events(.POST, coachee.messagesPath, json: ["content": "Back in signal?"],
                                                              headers: [sendKey], stopAfter: 2)
                let answer = try #require(first.first?["assistantMessageId"] as? String)

                // The phone sends again, its answer still holding the person's one slot: the same answer follows.
                let (status, replay) = try await coachee.sse.events(.POST, coachee.messagesPath, json: ["content": "Back in signal?"],
                                                                    headers: [sendKey])
                #expect(status == 200)
                #expect(replay.first?.event == "start" && replay.first?["assistantMessageId"] as? String == answer)
                #expect(replay.last?.event == "done")
                #expect(replay.text == (0..<30).map { "token\($0)" }.joined(separator: " "))
            }
            #expect(try await hearth.adminCount("messages WHERE role = 'user'") == 1)
            #expect(try await hearth.eventually("usage_records", equals: 1))
        }
    }

    @Test func aSendAfterTheAccountIsDeletedIsRefusedThoughItsKeyIsRemembered() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            // A first send leaves the person's data key in the server's memory.
            #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token,
                                          json: ["content": "Hello"]).status == .ok)
            #expect(try await client.call(.delete, "/v1/me", clientKey: key, token: coachee.token).status == .noContent)

            let after = try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token, json: ["content": "Still me?"])
            #expect(after.status == .unauthorized && after.errorCode == "session_revoked")
        }
        #expect(try await hearth.adminCount("messages") == 0)
        #expect(try await hearth.adminCount("stream_leases") == 0)
    }

    @Test func theContextReadBesideASendLeavesItsQuestionOutEvenWhenTheQuestionCommittedFirst() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let coachee = try await Coachee.make(client, key: key)
            for content in ["First", "Second"] {
                #expect(try await client.call(.post, coachee.messagesPath, clientKey: key, token: coachee.token,
                                              json: ["content": content]).status == .ok)
            }
            // The read of a send whose question ("Second") is already committed, as when the read waited for a
            // connection: the history is the three messages before it, not four.
            let ids = try await hearth.adminTexts("""
                SELECT id::text FROM messages WHERE thread_id = '\(coachee.threadID)' AND role = 'user' ORDER BY seq
                """)
            func historyCount(leavingOut question: String) async throws -> String? {
                try await hearth.adminString("""
                    SELECT number::text FROM hearth_turn_send_context(
                        (SELECT tenant_id FROM threads WHERE id = '\(coachee.threadID)'),
                        (SELECT user_id FROM threads WHERE id = '\(coachee.threadID)'),
                        '\(coachee.threadID)', '\(question)', 11)
                    WHERE kind = 'history'
                    """)
            }
            #expect(try await historyCount(leavingOut: ids[1]) == "3")
            // A question not yet committed leaves the history whole.
            #expect(try await historyCount(leavingOut: UUID().uuidString) == "4")
        }
    }
}
