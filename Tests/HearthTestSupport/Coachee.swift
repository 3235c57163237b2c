import Foundation
import HearthPlatform
import HummingbirdTesting
import PostgresNIO
import Testing

/// A signed-in user of a fresh tenant, with a thread, on a live Hearth.
public struct Coachee: Sendable {
    public let key: String
    public let grant: Grant
    public let threadID: String
    public let sse: SSEClient

    public var token: String { grant.accessToken }

    public static func make(_ client: any TestClientProtocol, key: String, sessionType: String = "freeform", domain: String? = nil) async throws -> Coachee {
        let grant = try await client.anonymous(clientKey: key)
        var body: [String: any Sendable] = ["sessionType": sessionType]
        if let domain { body["domain"] = domain }
        let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: grant.accessToken, json: body)
        #expect(thread.status == .created)
        return Coachee(key: key, grant: grant, threadID: thread["id"] as! String,
                       sse: SSEClient(port: client.port!, clientKey: key, token: grant.accessToken))
    }

    /// The same person in another thread.
    public func newThread(_ client: any TestClientProtocol, domain: String? = nil) async throws -> Coachee {
        var body: [String: any Sendable] = [:]
        if let domain { body["domain"] = domain }
        let thread = try await client.call(.post, "/v1/threads", clientKey: key, token: token, json: body)
        #expect(thread.status == .created)
        return Coachee(key: key, grant: grant, threadID: thread["id"] as! String, sse: sse)
    }

    public var messagesPath: String { "/v1/threads/\(threadID)/messages" }
}

extension TestHearth {
    /// One value (as the superuser).
    public func adminString(_ sql: String) async throws -> String? {
        try await withAdminDatabase { database in
            try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).collect().first?.decode(String?.self)
        }
    }
}

extension [ReceivedEvent] {
    public var names: [String] { map(\.event) }
    public var text: String { compactMap(\.text).joined() }
}
