import Foundation
import HearthTestSupport
import HummingbirdTesting
import Testing

/// A person's sessions, as the app drives them: each over the event stream, each ended like closing the app,
/// and the background jobs allowed to finish before the next ("days later").
struct Person: Sendable {
    let client: any TestClientProtocol
    let hearth: TestHearth
    let me: Coachee

    init(_ client: any TestClientProtocol, _ hearth: TestHearth, key: String) async throws {
        self.client = client
        self.hearth = hearth
        self.me = try await Coachee.make(client, key: key)
    }

    /// One session in a new thread: every message's events, then the session is ended and memory written.
    func session(domain: String? = nil, _ messages: [String]) async throws -> [[ReceivedEvent]] {
        let thread = try await me.newThread(client, domain: domain)
        var streams: [[ReceivedEvent]] = []
        for message in messages {
            let (status, events) = try await thread.sse.events(.POST, thread.messagesPath, json: ["content": message])
            #expect(status == 200)
            #expect(events.first?.event == "start" && events.last?.event == "done", "\(events.names)")
            streams.append(events)
        }
        let end = try await client.call(.post, "/v1/threads/\(thread.threadID)/end-session", clientKey: me.key, token: me.token)
        #expect(end.status == .accepted)
        // The summary's facts job is queued with it: once the summary exists and no memory job is left, both ran.
        #expect(try await hearth.eventually("memory_summaries WHERE kind = 'session' AND thread_id = '\(thread.threadID)'", equals: 1))
        #expect(try await hearth.eventually("jobs WHERE kind IN ('memory.summarize', 'memory.extract-facts') AND state IN ('pending', 'running')",
                                            equals: 0))
        return streams
    }

    func get(_ path: String) async throws -> APIResponse {
        try await client.call(.get, path, clientKey: me.key, token: me.token)
    }

    func facts(_ category: String) async throws -> [[String: Any]] {
        try await get("/v1/me/memory/facts?category=\(category)")["facts"] as? [[String: Any]] ?? []
    }
}

extension [ReceivedEvent] {
    func first(_ name: String) -> ReceivedEvent? { first { $0.event == name } }
}

func text(_ fact: [String: Any]) -> String? { (fact["content"] as? [String: Any])?["text"] as? String }
