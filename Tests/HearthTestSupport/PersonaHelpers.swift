import Foundation
import HummingbirdTesting
import Testing

/// A persona body as an app sends it.
public func personaBody(name: String = "Career Compass", methodology: String = "The 3P Framework: positioning, proof and pitch, one step a week.",
                        domain: String = "career") -> [String: any Sendable] {
    [
        "name": name, "domain": domain, "description": "A warm but direct career coach for people changing jobs.",
        "tone": "warm but direct", "methodology": methodology,
        "personality": "Practical and encouraging; asks one good question at a time.",
        "greeting": "Hi! What change are you thinking about?", "examples": ["Help me plan a career switch"], "creatorName": "Aisha K.",
    ]
}

extension TestClientProtocol {
    /// A live persona of `key`'s app, created and approved by a new creator.
    public func livePersona(key: String) async throws -> (id: String, creator: Grant) {
        let creator = try await anonymous(clientKey: key)
        let id = try #require(try await call(.post, "/v1/personas", clientKey: key, token: creator.accessToken, json: personaBody())["id"] as? String)
        #expect(try await call(.post, "/v1/personas/\(id)/submit", clientKey: key, token: creator.accessToken)["status"] as? String == "approved")
        return (id, creator)
    }
}
