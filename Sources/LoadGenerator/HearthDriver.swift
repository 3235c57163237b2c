import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// A coaching app user against Hearth: an anonymous account and a thread, then streamed turns
/// (`Accept: text/event-stream`), timed to the first `delta` and to `done`.
struct HearthDriver: TurnDriver {
    struct User: Sendable {
        let token: String
        let threadID: String
    }

    let client: HTTPClient
    let target: LoadTarget
    let clientKey: String
    let message: String
    let timeout: Duration

    /// Setting a user up is not a measured turn: it gets a minute whatever the turn's deadline (`--timeout`), so a
    /// short deadline does not fail a run in its set-up on a loaded machine.
    static let setUpTimeout: Duration = .seconds(60)

    private struct Grant: Decodable { let accessToken: String }
    private struct Created: Decodable { let id: String }
    private struct ErrorEvent: Decodable { let code: String }

    func setUp(user index: Int) async throws -> User {
        let grant = try await client.decoded(
            try .json(.POST, target.url("/v1/auth/anonymous"), body: [String: String](), headers: [("X-Hearth-Client-Key", clientKey)]),
            as: Grant.self, timeout: Self.setUpTimeout
        )
        return User(token: grant.accessToken, threadID: try await createThread(token: grant.accessToken, title: "load \(index)"))
    }

    /// A new thread of the signed-in user; returns its id.
    func createThread(token: String, title: String) async throws -> String {
        try await client.decoded(
            try .json(.POST, target.url("/v1/threads"), body: ["title": title], headers: headers(token)),
            as: Created.self, timeout: Self.setUpTimeout
        ).id
    }

    func turn(_ user: User, recorder: LatencyRecorder) async {
        let request: HTTPClientRequest
        do {
            request = try .json(.POST, target.url("/v1/threads/\(user.threadID)/messages"), body: ["content": message],
                                headers: headers(user.token) + [("Accept", "text/event-stream")])
        } catch {
            return recorder.failed("encoding")
        }
        await StreamTimer(client: client, timeout: timeout).measure(request, recorder: recorder) { event in
            switch event.event {
            case "delta": return .firstToken
            case "done": return .done
            case "error":
                let code = (try? JSONDecoder().decode(ErrorEvent.self, from: Data(event.data.utf8)))?.code ?? "unknown"
                return .failure("event_\(code)")
            default: return .ignore
            }
        }
    }

    func headers(_ token: String) -> [(String, String)] {
        [("X-Hearth-Client-Key", clientKey), ("Authorization", "Bearer \(token)")]
    }
}

/// The same turn straight to an OpenAI-compatible server (the mock): what the model costs without Hearth.
struct DirectDriver: TurnDriver {
    let client: HTTPClient
    let target: LoadTarget
    let message: String
    let timeout: Duration

    private struct Body: Encodable {
        struct Message: Encodable { let role: String; let content: String }
        struct StreamOptions: Encodable { let include_usage = true }
        let model = "mock"
        let stream = true
        let stream_options = StreamOptions()
        let messages: [Message]
    }

    func setUp(user index: Int) async throws {}

    func turn(_ user: Void, recorder: LatencyRecorder) async {
        let body = Body(messages: [.init(role: "system", content: "You are a warm, concise coach."), .init(role: "user", content: message)])
        guard let request = try? HTTPClientRequest.json(.POST, target.url("/chat/completions"), body: body,
                                                        headers: [("Accept", "text/event-stream")]) else {
            return recorder.failed("encoding")
        }
        await StreamTimer(client: client, timeout: timeout).measure(request, recorder: recorder) { event in
            if event.data == "[DONE]" { return .done }
            return event.data.contains(#""content""#) ? .firstToken : .ignore
        }
    }
}
