import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Personas
import Testing

@Suite struct PersonaTests {
    @Test func creatorsWriteEditListAndDeleteOnlyTheirOwnPersonas() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        let (_, otherKey) = try await hearth.createTenant()
        try await hearth.test { client in
            let aisha = try await client.anonymous(clientKey: key)
            let created = try await client.call(.post, "/v1/personas", clientKey: key, token: aisha.accessToken, json: personaBody())
            #expect(created.status == .created)
            #expect(created["status"] as? String == "draft" && created["revision"] as? Int == 1 && created["isLive"] as? Bool == false)
            #expect((created["draft"] as? [String: Any])?["creatorName"] as? String == "Aisha K.")
            let id = try #require(created["id"] as? String)

            var edited = personaBody(name: "Career Compass Pro")
            edited["examples"] = ["Help me plan a career switch", "Practise my salary talk"]
            let updated = try await client.call(.put, "/v1/personas/\(id)", clientKey: key, token: aisha.accessToken, json: edited)
            #expect(updated.status == .ok && updated["revision"] as? Int == 2)
            #expect((updated["draft"] as? [String: Any])?["name"] as? String == "Career Compass Pro")

            let list = try await client.call(.get, "/v1/personas", clientKey: key, token: aisha.accessToken)
            #expect((list["personas"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])

            // Someone else, in the same app or another, finds nothing.
            let stranger = try await client.anonymous(clientKey: key)
            #expect(try await client.call(.get, "/v1/personas/\(id)", clientKey: key, token: stranger.accessToken).status == .notFound)
            #expect(try await client.call(.put, "/v1/personas/\(id)", clientKey: key, token: stranger.accessToken, json: personaBody()).status == .notFound)
            #expect(try await client.call(.delete, "/v1/personas/\(id)", clientKey: key, token: stranger.accessToken).status == .notFound)
            let elsewhere = try await client.anonymous(clientKey: otherKey)
            #expect(try await client.call(.get, "/v1/personas/\(id)", clientKey: otherKey, token: elsewhere.accessToken).status == .notFound)

            // Clear errors for bad input.
            let badDomain = try await client.call(.post, "/v1/personas", clientKey: key, token: aisha.accessToken, json: personaBody(domain: "astrology"))
            #expect(badDomain.status == .unprocessableContent && badDomain.errorCode == "validation_failed")
            let longName = try await client.call(.post, "/v1/personas", clientKey: key, token: aisha.accessToken,
                                                 json: personaBody(name: String(repeating: "x", count: 61)))
            #expect(longName.status == .unprocessableContent)
            var missing = personaBody()
            missing["tone"] = nil
            #expect(try await client.call(.post, "/v1/personas", clientKey: key, token: aisha.accessToken, json: missing).status == .badRequest)
            #expect(try await client.call(.get, "/v1/personas/not-a-uuid", clientKey: key, token: aisha.accessToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/personas", clientKey: key).status == .unauthorized)

            #expect(try await client.call(.delete, "/v1/personas/\(id)", clientKey: key, token: aisha.accessToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/personas/\(id)", clientKey: key, token: aisha.accessToken).status == .notFound)
        }
    }

    @Test func aPersonaTheScreeningPassesIsApprovedAndAnEditWaitsWhileTheApprovedCopyStaysLive() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let aisha = try await client.anonymous(clientKey: key)
            let id = try #require(try await client.call(.post, "/v1/personas", clientKey: key, token: aisha.accessToken, json: personaBody())["id"] as? String)
            let submitted = try await client.call(.post, "/v1/personas/\(id)/submit", clientKey: key, token: aisha.accessToken)
            #expect(submitted.status == .ok)
            #expect(submitted["status"] as? String == "approved" && submitted["isLive"] as? Bool == true)
            #expect((submitted["screening"] as? [String: Any])?["verdict"] as? String == "pass")
            #expect((submitted["published"] as? [String: Any])?["name"] as? String == "Career Compass")
            let again = try await client.call(.post, "/v1/personas/\(id)/submit", clientKey: key, token: aisha.accessToken)
            #expect(again.status == .conflict && again.errorCode == "nothing_to_submit")

            let edited = try await client.call(.put, "/v1/personas/\(id)", clientKey: key, token: aisha.accessToken,
                                               json: personaBody(name: "Career Compass 2"))
            #expect(edited["status"] as? String == "draft" && edited["isLive"] as? Bool == true)
            #expect((edited["published"] as? [String: Any])?["name"] as? String == "Career Compass")
            #expect(edited["publishedRevision"] as? Int == 1)
        }
        let history = try await hearth.withAppDatabase { database in
            try await PersonaModeration(database: database).persona(tenantID: tenant.id, id: try #require(UUID(uuidString: try await firstPersona(hearth, tenant.id)))).history
        }
        #expect(history.map(\.action) == [.submitted, .screened, .approved])
        #expect(history.map(\.actor) == [.creator, .screening, .screening])
    }

    @Test func avatarsAreCheckedByTheirBytesSizeAndDimensions() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let creator = try await client.anonymous(clientKey: key)
            let id = try #require(try await client.call(.post, "/v1/personas", clientKey: key, token: creator.accessToken, json: personaBody())["id"] as? String)
            let path = "/v1/personas/\(id)/avatar"
            func upload(_ bytes: [UInt8], type: String) async throws -> APIResponse {
                try await client.upload(.put, path, clientKey: key, token: creator.accessToken, bytes: bytes, contentType: type)
            }
            let png = pngHeader(width: 256, height: 256) + [UInt8](repeating: 7, count: 100)
            let stored = try await upload(png, type: "image/png")
            #expect(stored.status == .ok && stored["hasAvatar"] as? Bool == true && stored["revision"] as? Int == 2)
            let served = try await client.call(.get, path, clientKey: key, token: creator.accessToken)
            #expect(served.status == .ok && served.headers[.contentType] == "image/png" && Array(buffer: served.body) == png)

            #expect(try await upload(png, type: "image/jpeg").status == .unprocessableContent)
            #expect(try await upload(png, type: "image/gif").status == .unsupportedMediaType)
            #expect(try await upload(Array("not an image".utf8), type: "image/png").status == .unprocessableContent)
            #expect(try await upload(pngHeader(width: 8, height: 8), type: "image/png").status == .unprocessableContent)
            #expect(try await upload(pngHeader(width: 5000, height: 300), type: "image/png").status == .unprocessableContent)
            let large = try await upload(pngHeader(width: 256, height: 256) + [UInt8](repeating: 1, count: 1_048_576), type: "image/png")
            #expect(large.status == .contentTooLarge && large.errorCode == "image_too_large")
            let jpeg = jpegHeader(width: 640, height: 480)
            #expect(try await upload(jpeg, type: "image/jpeg").status == .ok)

            let removed = try await client.call(.delete, path, clientKey: key, token: creator.accessToken)
            #expect(removed.status == .ok && removed["hasAvatar"] as? Bool == false)
            #expect(try await client.call(.get, path, clientKey: key, token: creator.accessToken).status == .notFound)
        }
        // Only the avatars a copy shows are kept.
        #expect(try await hearth.adminString("SELECT count(*)::text FROM persona_avatars") == "0")
    }
}

/// The first persona of a tenant (as the superuser).
func firstPersona(_ hearth: TestHearth, _ tenantID: UUID) async throws -> String {
    try #require(try await hearth.adminString("SELECT id FROM personas WHERE tenant_id = '\(tenantID)' ORDER BY created_at LIMIT 1"))
}

/// An operator to act as a moderator (the console issue signs them in; here they only need to exist).
func makeModerator(_ hearth: TestHearth, tenantID: UUID) async throws -> Operator {
    let id = UUID()
    let email = "mod-\(id.uuidString.prefix(8).lowercased())@example.com"
    _ = try await hearth.adminString(
        "INSERT INTO operators (id, email, password_hash, role, tenant_id) VALUES ('\(id)', '\(email)', 'x', 'moderator', '\(tenantID)') RETURNING id"
    )
    return Operator(id: id, email: email, role: .moderator, tenantID: tenantID)
}

/// The bytes of a PNG's signature and IHDR chunk: all the avatar check reads.
func pngHeader(width: Int, height: Int) -> [UInt8] {
    func be(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + Array("IHDR".utf8) + be(width) + be(height) + [8, 6, 0, 0, 0]
}

/// SOI, an APP0 segment, then SOF0 with the height and width.
func jpegHeader(width: Int, height: Int) -> [UInt8] {
    [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x0B, 0x08,
     UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]
}
