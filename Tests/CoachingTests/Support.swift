import Coaching
import Foundation
import HearthPlatform
import HearthTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

/// A signed-in user of a fresh tenant, with a thread, on a live Hearth.
struct Coachee: Sendable {
    let key: String
    let grant: Grant
    let threadID: String
    let sse: SSEClient

    var token: String { grant.accessToken }

    static func make(_ client: any TestClientProtocol, key: String, sessionType: String = "freeform") async throws -> Coachee {
        let grant = try await client.anonymous(clientKey: key)
        let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: grant.accessToken, json: ["sessionType": sessionType])
        #expect(thread.status == .created)
        return Coachee(key: key, grant: grant, threadID: thread["id"] as! String,
                       sse: SSEClient(port: client.port!, clientKey: key, token: grant.accessToken))
    }

    var messagesPath: String { "/v1/threads/\(threadID)/messages" }
}

extension TestHearth {
    /// Polls (as the superuser) until `condition` holds or the time is up.
    func adminString(_ sql: String) async throws -> String? {
        try await withAdminDatabase { database in
            try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).collect().first?.decode(String?.self)
        }
    }
}

extension [ReceivedEvent] {
    var names: [String] { map(\.event) }
    var text: String { compactMap(\.text).joined() }
}
