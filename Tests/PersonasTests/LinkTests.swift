import Foundation
import HearthPlatform
import HearthTestSupport
import HummingbirdTesting
import Personas
import Testing

@Suite struct LinkTests {
    @Test func creatorsAndFansShareLiveOnesUnderUnguessableSlugsTheyCanRotateAndRevoke() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        let (_, otherKey) = try await hearth.createTenant()
        try await hearth.test { client in
            let (id, creator) = try await client.livePersona(key: key)
            let shared = try await client.call(.post, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)
            #expect(shared.status == .created && shared["kind"] as? String == "creator")
            let slug = try #require(shared["slug"] as? String)
            #expect(slug.count == 16 && shared["url"] as? String == "http://127.0.0.1:8080/p/\(slug)")
            // Asking again gives the same live link.
            let again = try await client.call(.post, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)
            #expect(again.status == .ok && again["slug"] as? String == slug)

            // A fan shares it too, under a link of their own (FR25).
            let fan = try await client.anonymous(clientKey: key)
            let fanLink = try await client.call(.post, "/v1/personas/\(id)/links", clientKey: key, token: fan.accessToken)
            #expect(fanLink.status == .created && fanLink["kind"] as? String == "share" && fanLink["slug"] as? String != slug)
            let fanSlug = try #require(fanLink["slug"] as? String)
            let creatorView = try await client.call(.get, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)
            #expect((creatorView["links"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } == [slug, fanSlug])
            let fanView = try await client.call(.get, "/v1/personas/\(id)/links", clientKey: key, token: fan.accessToken)
            #expect((fanView["links"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } == [fanSlug])

            // The app opens a link; another app cannot, and a made-up slug is simply not found.
            let card = try await client.call(.post, "/v1/links/\(slug)/open", clientKey: key)
            #expect(card.status == .ok && card["name"] as? String == "Career Compass" && card["creatorName"] as? String == "Aisha K.")
            #expect(card["draft"] == nil && card["published"] == nil)
            #expect(try await client.call(.post, "/v1/links/\(slug)/open", clientKey: otherKey).status == .notFound)
            #expect(try await client.call(.post, "/v1/links/AAAAAAAAAAAAAAAA/open", clientKey: key).status == .notFound)
            #expect(try await client.call(.post, "/v1/links/short/open", clientKey: key).status == .notFound)

            // Only its owner rotates or revokes a link; the old slug stops working for good.
            #expect(try await client.call(.post, "/v1/links/\(slug)/rotate", clientKey: key, token: fan.accessToken).status == .notFound)
            let rotated = try await client.call(.post, "/v1/links/\(slug)/rotate", clientKey: key, token: creator.accessToken)
            #expect(rotated.status == .created && rotated["slug"] as? String != slug && rotated["kind"] as? String == "creator")
            let gone = try await client.call(.post, "/v1/links/\(slug)/open", clientKey: key)
            #expect(gone.status == .gone && gone.errorCode == "link_revoked")
            #expect(try await client.call(.delete, "/v1/links/\(fanSlug)", clientKey: key, token: creator.accessToken).status == .notFound)
            #expect(try await client.call(.delete, "/v1/links/\(fanSlug)", clientKey: key, token: fan.accessToken).status == .noContent)
            #expect(try await client.call(.post, "/v1/links/\(fanSlug)/open", clientKey: key).errorCode == "link_revoked")

            // A draft persona cannot be shared.
            let draft = try #require(try await client.call(.post, "/v1/personas", clientKey: key, token: creator.accessToken, json: personaBody())["id"] as? String)
            #expect(try await client.call(.post, "/v1/personas/\(draft)/links", clientKey: key, token: creator.accessToken).status == .notFound)
        }
    }

    @Test func startingFromALinkOpensOneThreadAPersonAndStopsWhenThePersonaIsSuspended() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let moderator = try await makeModerator(hearth, tenantID: tenant.id)
        try await hearth.test { client in
            let (id, creator) = try await client.livePersona(key: key)
            let slug = try #require(try await client.call(.post, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)["slug"] as? String)
            // An anonymous first session works (FR26).
            let newcomer = try await client.anonymous(clientKey: key)
            let started = try await client.call(.post, "/v1/links/\(slug)/start", clientKey: key, token: newcomer.accessToken)
            #expect(started.status == .created && started["isNew"] as? Bool == true)
            #expect((started["persona"] as? [String: Any])?["greeting"] as? String == "Hi! What change are you thinking about?")
            let threadID = try #require(started["threadID"] as? String)
            let thread = try await client.call(.get, "/v1/threads/\(threadID)", clientKey: key, token: newcomer.accessToken)
            #expect(thread["personaID"] as? String == id && thread["domain"] as? String == "career")
            // Starting again goes back to the same thread.
            let resumed = try await client.call(.post, "/v1/links/\(slug)/start", clientKey: key, token: newcomer.accessToken)
            #expect(resumed.status == .ok && resumed["threadID"] as? String == threadID)
            #expect(try await client.call(.post, "/v1/links/\(slug)/start", clientKey: key).status == .unauthorized)

            let personaID = try #require(UUID(uuidString: id))
            try await hearth.withAppDatabase { database in
                _ = try await PersonaModeration(database: database).suspend(tenantID: tenant.id, id: personaID, note: "Reported.", by: moderator)
            }
            let other = try await client.anonymous(clientKey: key)
            let refused = try await client.call(.post, "/v1/links/\(slug)/start", clientKey: key, token: other.accessToken)
            #expect(refused.status == .gone && refused.errorCode == "persona_unavailable")
            #expect(try await client.call(.post, "/v1/links/\(slug)/open", clientKey: key).errorCode == "persona_unavailable")
        }
    }
}
