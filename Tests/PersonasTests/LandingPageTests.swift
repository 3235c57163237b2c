import CompressNIO
import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import Personas
import Testing

/// The public side of share links: `/p/{slug}`, its preview image and avatar, and each tenant's
/// apple-app-site-association, as a phone's browser and Apple's CDN see them.
@Suite struct LandingPageTests {
    static let serenity = AppLinks(host: "links.serenity.test", appName: "Serenity", urlScheme: "serenity", appStoreID: "1234567890",
                                   appIDs: ["ABCDE12345.app.serenity.ios"])

    /// A persona whose text tries to be markup, approved by a moderator, with a creator's link.
    func hostilePersona(_ hearth: TestHearth, _ client: any TestClientProtocol, tenant: Tenant, key: String) async throws -> (id: String, slug: String, creator: Grant) {
        try await hearth.withAppDatabase { database in try await Personas.setReviewPolicy(database: database, tenantID: tenant.id, .all) }
        let creator = try await client.anonymous(clientKey: key)
        var body = personaBody(name: "Ana <b>\"Bold\"</b> & Co")
        body["description"] = "Career help that's <script>alert('x')</script> direct & kind."
        body["creatorName"] = "Aisha 'K' <i>"
        body["examples"] = ["Plan <my> switch", "Practise my pitch"]
        let id = try #require(try await client.call(.post, "/v1/personas", clientKey: key, token: creator.accessToken, json: body)["id"] as? String)
        _ = try await client.call(.post, "/v1/personas/\(id)/submit", clientKey: key, token: creator.accessToken)
        try await hearth.createOperator("mod-\(tenant.slug)@example.com", role: .moderator, tenantID: tenant.id)
        let moderator = try await client.operatorToken("mod-\(tenant.slug)@example.com")
        let approved = try await client.call(.post, "/operator/v1/tenants/\(tenant.slug)/personas/\(id)/approve", token: moderator, json: ["revision": 1])
        #expect(approved["isLive"] as? Bool == true, "\(approved.text)")
        let link = try await client.call(.post, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)
        return (id, try #require(link["slug"] as? String), creator)
    }

    func clicks(_ client: any TestClientProtocol, key: String, creator: Grant, persona id: String) async throws -> Int? {
        let links = try await client.call(.get, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)["links"] as? [[String: Any]]
        return (links?.first?["stats"] as? [String: Any])?["clicks"] as? Int
    }

    @Test func aLivePersonasPageIsEscapedTaggedOpensTheAppAndCountsPeopleNotPreviewBots() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.withAppDatabase { database in try await Self.serenity.save(tenantID: tenant.id, database: database) }
        try await hearth.test { client in
            let (id, slug, creator) = try await hostilePersona(hearth, client, tenant: tenant, key: key)
            let links = try await client.call(.get, "/v1/personas/\(id)/links", clientKey: key, token: creator.accessToken)["links"] as? [[String: Any]]
            #expect(links?.first?["url"] as? String == "https://links.serenity.test/p/\(slug)")

            let page = try await client.browse("/p/\(slug)", host: "links.serenity.test")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let html = page.text
            // Every piece of persona text is text: no tag the creator wrote survives.
            for raw in ["<b>", "</b>", "<script>", "<i>", "<my>"] { #expect(!html.contains(raw), "\(raw) reached the page") }
            #expect(html.contains("<h1>Ana &lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; Co</h1>"))
            #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
            #expect(html.contains("by Aisha &#39;K&#39; &lt;i&gt;"))
            #expect(html.contains("<li>Plan &lt;my&gt; switch</li>"))
            #expect(html.contains("Career coach"))
            // Link previews: Open Graph and Twitter tags with an absolute image on the tenant's link host.
            #expect(html.contains(#"<meta property="og:title" content="Ana &lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; Co · Career coach">"#))
            #expect(html.contains(#"<meta property="og:url" content="https://links.serenity.test/p/\#(slug)">"#))
            #expect(html.contains(#"<meta property="og:image" content="https://links.serenity.test/p/\#(slug)/preview.png?v="#))
            #expect(html.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
            // Open in the app (custom scheme; the page URL itself is the universal link), else the App Store.
            #expect(html.contains(#"href="serenity://p/\#(slug)">Open in Serenity</a>"#))
            #expect(html.contains(#"href="https://apps.apple.com/app/id1234567890">Get Serenity on the App Store</a>"#))
            #expect(html.contains(#"<meta name="apple-itunes-app" content="app-id=1234567890, app-argument=https://links.serenity.test/p/\#(slug)">"#))
            #expect(html.contains("Have Serenity on your iPhone? This link opens it straight away."))
            #expect(html.contains("AI coaching, not therapy."))
            #expect(html.contains(#"<link rel="stylesheet" href="/assets/landing.css">"#))

            // One person is one click however often they reload; link-preview fetchers are no clicks.
            #expect(try await clicks(client, key: key, creator: creator, persona: id) == 1)
            let cookie = try #require(page.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            _ = try await client.browse("/p/\(slug)", host: "links.serenity.test", headers: [.cookie: cookie])
            _ = try await client.browse("/p/\(slug)", headers: [.userAgent: "facebookexternalhit/1.1 Facebot Twitterbot/1.0"])
            _ = try await client.browse("/p/\(slug)", headers: [.userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"])
            #expect(try await clicks(client, key: key, creator: creator, persona: id) == 1)
            _ = try await client.browse("/p/\(slug)")
            #expect(try await clicks(client, key: key, creator: creator, persona: id) == 2)

            // The stylesheet the page names is served, cacheably.
            let css = try await client.browse("/assets/landing.css")
            #expect(css.status == .ok && css.headers[.contentType] == "text/css; charset=utf-8" && css.text.contains(".button"))
            let etag = try #require(css.headers[.eTag])
            #expect(try await client.browse("/assets/landing.css", headers: [.ifNoneMatch: etag]).status == .notModified)
            #expect(try await client.browse("/assets/missing.css").status == .notFound)
        }
    }

    @Test func thePreviewImageIsAReal1200By630PngThatChangesWithThePersona() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let (id, slug, creator) = try await hostilePersona(hearth, client, tenant: tenant, key: key)
            let preview = try await client.browse("/p/\(slug)/preview.png")
            #expect(preview.status == .ok && preview.headers[.contentType] == "image/png")
            let png = Array(buffer: preview.body)
            let image = try decodePNG(png)
            #expect(image.width == 1200 && image.height == 630)
            // Text is drawn: the dark ink appears, and more than a sliver of it.
            let ink = image.count(of: (0x22, 0x20, 0x1E))
            #expect(ink > 5000)
            // Cached by its ETag; the same persona draws the same bytes.
            let etag = try #require(preview.headers[.eTag])
            #expect(try await client.browse("/p/\(slug)/preview.png", headers: [.ifNoneMatch: etag]).status == .notModified)
            #expect(Array(buffer: try await client.browse("/p/\(slug)/preview.png").body) == png)

            // An approved edit draws a new picture under a new tag.
            _ = try await client.call(.put, "/v1/personas/\(id)", clientKey: key, token: creator.accessToken, json: personaBody(name: "Calm Waters"))
            _ = try await client.call(.post, "/v1/personas/\(id)/submit", clientKey: key, token: creator.accessToken)
            let moderator = try await client.operatorToken("mod-\(tenant.slug)@example.com")
            _ = try await client.call(.post, "/operator/v1/tenants/\(tenant.slug)/personas/\(id)/approve", token: moderator, json: ["revision": 2])
            let edited = try await client.browse("/p/\(slug)/preview.png")
            #expect(edited.headers[.eTag] != etag && Array(buffer: edited.body) != png)
            #expect(try await client.browse("/p/\(slug)").text.contains("<h1>Calm Waters</h1>"))
        }
    }

    @Test func revokedSuspendedAndUnknownLinksGetFriendlyPagesAndNothingElse() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let (other, _) = try await hearth.createTenant()
        try await hearth.withAppDatabase { database in
            try await Self.serenity.save(tenantID: tenant.id, database: database)
            try await AppLinks(host: "links.other.test", appIDs: ["ZZZZZ99999.app.other"]).save(tenantID: other.id, database: database)
        }
        try await hearth.test { client in
            let (id, slug, creator) = try await hostilePersona(hearth, client, tenant: tenant, key: key)
            let avatar = pngHeader(width: 64, height: 64) + [UInt8](repeating: 7, count: 50)
            _ = try await client.upload(.put, "/v1/personas/\(id)/avatar", clientKey: key, token: creator.accessToken, bytes: avatar, contentType: "image/png")
            _ = try await client.call(.post, "/v1/personas/\(id)/submit", clientKey: key, token: creator.accessToken)
            let moderator = try await client.operatorToken("mod-\(tenant.slug)@example.com")
            _ = try await client.call(.post, "/operator/v1/tenants/\(tenant.slug)/personas/\(id)/approve", token: moderator, json: ["revision": 2])
            let page = try await client.browse("/p/\(slug)")
            #expect(page.text.contains(#"<img class="avatar" src="/p/\#(slug)/avatar""#))
            let served = try await client.browse("/p/\(slug)/avatar")
            #expect(served.status == .ok && served.headers[.contentType] == "image/png" && Array(buffer: served.body) == avatar)

            // Another tenant's link host shows none of this tenant's links.
            #expect(try await client.browse("/p/\(slug)", host: "links.other.test").status == .notFound)
            #expect(try await client.browse("/p/\(slug)/preview.png", host: "links.other.test").status == .notFound)

            let unknown = try await client.browse("/p/AAAAAAAAAAAAAAAA")
            #expect(unknown.status == .notFound && unknown.text.contains("We couldn&#39;t find that coach"))
            #expect(unknown.headers[.contentType] == "text/html; charset=utf-8")
            #expect(try await client.browse("/p/not-a-slug").status == .notFound)

            // Suspended: gone, pointing to the app; its picture and avatar go too.
            try await hearth.withAppDatabase { database in
                _ = try await PersonaModeration(database: database).suspend(tenantID: tenant.id, id: try #require(UUID(uuidString: id)), note: "Reported.",
                                                                            by: makeModerator(hearth, tenantID: tenant.id))
            }
            let suspended = try await client.browse("/p/\(slug)")
            #expect(suspended.status == .gone && suspended.text.contains("This coach isn&#39;t available any more"))
            #expect(suspended.text.contains("Get Serenity on the App Store") && !suspended.text.contains("Ana"))
            #expect(try await client.browse("/p/\(slug)/preview.png").status == .notFound)
            #expect(try await client.browse("/p/\(slug)/avatar").status == .notFound)

            // Revoked: gone for good, even once the persona is back.
            _ = try await client.call(.post, "/operator/v1/tenants/\(tenant.slug)/personas/\(id)/reinstate", token: moderator)
            #expect(try await client.browse("/p/\(slug)").status == .ok)
            #expect(try await client.call(.delete, "/v1/links/\(slug)", clientKey: key, token: creator.accessToken).status == .noContent)
            let revoked = try await client.browse("/p/\(slug)")
            #expect(revoked.status == .gone && revoked.text.contains("This link has been turned off"))
        }
    }

    @Test func eachTenantsLinkHostServesItsOwnAppSiteAssociation() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let (other, _) = try await hearth.createTenant()
        try await hearth.withAppDatabase { database in
            try await Self.serenity.save(tenantID: tenant.id, database: database)
            try await AppLinks(host: "links.other.test", appIDs: ["ZZZZZ99999.app.other", "ZZZZZ99999.app.other.beta"])
                .save(tenantID: other.id, database: database)
            // One host, one tenant.
            await #expect(throws: ConfigError.self) { try await AppLinks(host: "links.serenity.test").save(tenantID: other.id, database: database) }
            await #expect(throws: ConfigError.self) { try await AppLinks(urlScheme: "javascript").save(tenantID: other.id, database: database) }
            await #expect(throws: ConfigError.self) { try await AppLinks(appIDs: ["app.serenity"]).save(tenantID: other.id, database: database) }
        }
        try await hearth.test { client in
            let serenity = try await client.browse("/.well-known/apple-app-site-association", host: "links.serenity.test")
            #expect(serenity.status == .ok && serenity.headers[.contentType] == "application/json")
            let details = ((serenity.json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])?.first
            #expect(details?["appIDs"] as? [String] == ["ABCDE12345.app.serenity.ios"])
            #expect((details?["components"] as? [[String: Any]])?.first?["/"] as? String == "/p/*")
            let others = try await client.browse("/.well-known/apple-app-site-association", host: "LINKS.OTHER.TEST")
            #expect(((others.json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["appIDs"] as? [String]
                == ["ZZZZZ99999.app.other", "ZZZZZ99999.app.other.beta"])
            #expect(try await client.browse("/.well-known/apple-app-site-association").status == .notFound)
        }
    }

    @Test func thePixelFontDrawsEveryPrintableCharacterAndFoldsTheRest() {
        for scalar in 0x20...0x7E {
            let glyph = PixelFont.glyph(Character(UnicodeScalar(scalar)!))
            #expect(glyph?.count == PixelFont.height)
        }
        #expect(PixelFont.glyph("é") == nil)
        #expect(PixelFont.drawable("  Crème  “brûlée” — Straße\n日本 ") == "Creme \"brulee\" - Strasse")
        // Names too long for two big lines get smaller letters, then a cut.
        #expect(PreviewImage.fit("Career Compass", width: 1040, maxLines: 2, scales: PreviewImage.titleScales) == (["Career Compass"], 12))
        let long = PreviewImage.fit(String(repeating: "Mindfulness ", count: 10), width: 1040, maxLines: 2, scales: PreviewImage.titleScales)
        #expect(long.scale == 6 && long.lines.count == 2 && long.lines[1].hasSuffix("..."))
        #expect(PreviewImage.wrap("Supercalifragilistic", columns: 8) == ["Supercal", "ifragili", "stic"])
    }
}

/// The pixels of an 8-bit RGB PNG, read back independently of the encoder (zlib inflate, all five filters).
struct DecodedPNG {
    let width: Int
    let height: Int
    let rgb: [UInt8]

    func count(of colour: (UInt8, UInt8, UInt8)) -> Int {
        stride(from: 0, to: rgb.count, by: 3).filter { rgb[$0] == colour.0 && rgb[$0 + 1] == colour.1 && rgb[$0 + 2] == colour.2 }.count
    }
}

func decodePNG(_ bytes: [UInt8]) throws -> DecodedPNG {
    func int(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
    #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    var offset = 8, width = 0, height = 0
    var data: [UInt8] = []
    while offset + 8 <= bytes.count {
        let length = int(offset)
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
        if type == "IHDR" { (width, height) = (int(offset + 8), int(offset + 12)); #expect(body[8] == 8 && body[9] == 2) }
        if type == "IDAT" { data += body }
        offset += 12 + length
    }
    var compressed = ByteBuffer(bytes: data)
    let raw = Array(buffer: try compressed.decompress(with: .zlib()))
    let stride = width * 3
    #expect(raw.count == (stride + 1) * height)
    var rgb = [UInt8](repeating: 0, count: stride * height)
    for row in 0..<height {
        let filter = raw[row * (stride + 1)]
        for column in 0..<stride {
            let value = raw[row * (stride + 1) + 1 + column]
            let left = column >= 3 ? Int(rgb[row * stride + column - 3]) : 0
            let up = row > 0 ? Int(rgb[(row - 1) * stride + column]) : 0
            let upLeft = row > 0 && column >= 3 ? Int(rgb[(row - 1) * stride + column - 3]) : 0
            let predictor = switch filter {
            case 0: 0
            case 1: left
            case 2: up
            case 3: (left + up) / 2
            default: { let p = left + up - upLeft; let (a, b, c) = (abs(p - left), abs(p - up), abs(p - upLeft)); return a <= b && a <= c ? left : b <= c ? up : upLeft }()
            }
            rgb[row * stride + column] = UInt8(truncatingIfNeeded: Int(value) + predictor)
        }
    }
    return DecodedPNG(width: width, height: height, rgb: rgb)
}
