import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// The free trial (FR33) and what follows it: `subscription_required` for coaching while history, context and
/// export stay available, and `GET /v1/me/subscription` (FR35).
@Suite struct TrialTests {
    @Test func aTrialByDaysStartsAtTheFirstCoachedMessageAndEndsInSubscribeToContinueWhileEverythingElseStaysAvailable() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            // Before any coaching the trial has not started: all seven days remain.
            let before = try await client.call(.get, "/v1/me/subscription", clientKey: key, token: person.token)
            #expect(before.status == .ok && before["status"] as? String == "trial" && before["canCoach"] as? Bool == true)
            let unstarted = try #require(before["trial"] as? [String: Any])
            #expect(unstarted["startedAt"] == nil && unstarted["daysRemaining"] as? Int == 7 && unstarted["sessionsLimit"] == nil)
            #expect((before["plan"] as? [String: Any])?["code"] as? String == "trial")

            #expect(try await client.coach(person).status == .ok)
            let started = try #require(try await client.call(.get, "/v1/me/subscription", clientKey: key, token: person.token)["trial"] as? [String: Any])
            #expect(started["startedAt"] is String && started["endsAt"] is String && started["daysRemaining"] as? Int == 7)
            #expect(started["sessionsUsed"] as? Int == 1)

            // Eight days later (the trial's end moved into the past, as time would).
            try await hearth.admin("UPDATE subscriptions SET trial_ends_at = now() - interval '1 day', trial_started_at = now() - interval '8 days'")
            let refused = try await client.coach(person, "Can we pick up where we left off?")
            #expect(refused.status.code == 402 && refused.errorCode == "subscription_required")
            #expect(try await hearth.adminCount("messages WHERE thread_id = '\(person.threadID)'") == 2)  // nothing stored
            let streamed = try await person.sse.events(.POST, person.messagesPath, json: ["content": "Hello again"])
            #expect(streamed.status == 402)

            // History, context, memory and export stay available.
            let history = try await client.call(.get, person.messagesPath, clientKey: key, token: person.token)
            #expect(history.status == .ok && (history["messages"] as? [Any])?.count == 2)
            #expect(try await client.call(.get, "/v1/me/context", clientKey: key, token: person.token).status == .ok)
            #expect(try await client.call(.get, "/v1/me/export", clientKey: key, token: person.token).status == .ok)
            #expect(try await client.call(.get, "/v1/threads", clientKey: key, token: person.token).status == .ok)

            let ended = try await client.call(.get, "/v1/me/subscription", clientKey: key, token: person.token)
            #expect(ended["status"] as? String == "trial_ended" && ended["canCoach"] as? Bool == false)
            #expect((ended["trial"] as? [String: Any])?["daysRemaining"] as? Int == 0)
        }
    }

    @Test func aTrialBySessionsCountsEachThreadOnceAndRefusesTheFirstSessionBeyondIt() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let admin = try await adminToken(hearth, client, tenant: tenant)
            let saved = try await client.call(.put, "/operator/v1/tenants/\(tenant.slug)/billing/settings", token: admin,
                                              json: ["trialSessions": 2, "targetCostMicros": 2_000_000])
            #expect(saved.status == .ok && saved["trialSessions"] as? Int == 2 && saved["trialDays"] == nil)

            let first = try await Coachee.make(client, key: key)
            #expect(try await client.coach(first).status == .ok)
            #expect(try await client.coach(first, "And another thing about that.").status == .ok)  // the same session
            let second = try await first.newThread(client)
            #expect(try await client.coach(second).status == .ok)
            let view = try await client.call(.get, "/v1/me/subscription", clientKey: key, token: first.token)
            let trial = try #require(view["trial"] as? [String: Any])
            #expect(trial["sessionsUsed"] as? Int == 2 && trial["sessionsRemaining"] as? Int == 0 && trial["daysRemaining"] == nil)
            #expect(view["status"] as? String == "trial" && view["canCoach"] as? Bool == false)

            let third = try await first.newThread(client)
            #expect(try await client.coach(third).errorCode == "subscription_required")
            // A session already begun may be finished.
            #expect(try await client.coach(second, "One more question before I go.").status == .ok)
            #expect(try await hearth.adminString("SELECT cardinality(trial_threads)::text FROM subscriptions") == "2")
        }
    }

    @Test func aSubscriberSeesTheirRenewalAndALapsedOneIsAskedToSubscribe() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            #expect(try await client.coach(person).status == .ok)
            // The state verified App Store data leaves (the App Store tests drive it through real signed payloads).
            try await hearth.admin("""
                UPDATE subscriptions SET status = 'active', plan_code = 'premium', product_id = 'com.example.coach.monthly',
                    expires_at = now() + interval '20 days', auto_renew = true
                """)
            let active = try await client.call(.get, "/v1/me/subscription", clientKey: key, token: person.token)
            #expect(active["status"] as? String == "active" && active["canCoach"] as? Bool == true && active["trial"] == nil)
            #expect(active["renewsAt"] is String && active["renewsAt"] as? String == active["expiresAt"] as? String)
            #expect((active["plan"] as? [String: Any])?["name"] as? String == "Premium")
            #expect((active["limits"] as? [String: Any])?["requestsPerMinute"] as? Int == 120)
            #expect(try await client.coach(person, "Thanks, that helped.").status == .ok)

            for status in ["billing_retry", "expired", "refunded", "revoked"] {
                try await hearth.admin("UPDATE subscriptions SET status = '\(status)', auto_renew = false")
                let refused = try await client.coach(person, "Are you there?")
                #expect(refused.status.code == 402 && refused.errorCode == "subscription_required", "\(status)")
                let view = try await client.call(.get, "/v1/me/subscription", clientKey: key, token: person.token)
                #expect(view["status"] as? String == status && view["canCoach"] as? Bool == false && view["renewsAt"] == nil)
            }
            try await hearth.admin("UPDATE subscriptions SET status = 'grace_period'")
            #expect(try await client.coach(person, "Back again.").status == .ok)
        }
    }

    @Test func aSubscriptionIsAPersonsOwnAndNeedsSigningIn() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            #expect(try await client.call(.get, "/v1/me/subscription", clientKey: key).status == .unauthorized)
            let person = try await Coachee.make(client, key: key)
            let other = try await Coachee.make(client, key: key)
            #expect(try await client.coach(person).status == .ok)
            try await hearth.admin("UPDATE subscriptions SET trial_ends_at = now() - interval '1 second'")
            #expect(try await client.coach(person).errorCode == "subscription_required")
            // Another person's trial is their own.
            #expect(try await client.coach(other).status == .ok)
        }
    }
}
