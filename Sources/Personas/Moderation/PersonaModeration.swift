import Foundation
import HearthPlatform
import PostgresNIO

/// What moderators do with personas (FR46): read the queue with the screening's reasons, approve, reject with a
/// reason, suspend a live persona and reinstate it. Every action is written to the persona's history
/// (`persona_reviews`) with the operator who took it, and to the audit log in the same transaction. The console
/// and the operator API call this.
public struct PersonaModeration: Sendable {
    let database: Database
    let store: PersonaStore
    let audit: AuditLog

    public init(database: Database) {
        self.database = database
        self.store = PersonaStore(logger: database.logger)
        self.audit = AuditLog(logger: database.logger)
    }

    /// Submitted personas, oldest first.
    public func queue(tenantID: UUID, limit: Int = 50) async throws -> [PersonaView] {
        try await database.withTenant(tenantID) { [self] connection in try await store.queue(limit: limit, on: connection) }
    }

    /// A persona with its review history, oldest first.
    public func persona(tenantID: UUID, id: UUID) async throws -> (persona: PersonaView, history: [PersonaReview]) {
        try await database.withTenant(tenantID) { [self] connection in
            guard let persona = try await store.find(id, on: connection) else { throw Personas.notFound }
            return (persona, try await store.history(personaID: id, on: connection))
        }
    }

    /// Publishes the submitted revision the moderator read (`revision`): a newer one is a 409.
    public func approve(tenantID: UUID, id: UUID, revision: Int, by author: Operator) async throws -> PersonaView {
        try await act(tenantID: tenantID, id: id, by: author, action: .approved) { persona in
            try Self.require(persona, status: .submitted, revision: revision)
            return (.approve(nil), nil)
        }
    }

    public func reject(tenantID: UUID, id: UUID, revision: Int, note: String, by author: Operator) async throws -> PersonaView {
        let note = try Self.validNote(note)
        return try await act(tenantID: tenantID, id: id, by: author, action: .rejected) { persona in
            try Self.require(persona, status: .submitted, revision: revision)
            return (.reject(note: note), note)
        }
    }

    /// Takes a persona down, whatever its review state: its page and links stop working until it is reinstated.
    public func suspend(tenantID: UUID, id: UUID, note: String, by author: Operator) async throws -> PersonaView {
        let note = try Self.validNote(note)
        return try await act(tenantID: tenantID, id: id, by: author, action: .suspended) { persona in
            guard persona.status != .suspended else { throw APIError.conflict("already_suspended", "This persona is already suspended.") }
            return (.suspend(note: note), note)
        }
    }

    /// Lifts a suspension: the published copy is live again; an edit that was waiting goes back to its creator as
    /// a draft.
    public func reinstate(tenantID: UUID, id: UUID, by author: Operator) async throws -> PersonaView {
        try await act(tenantID: tenantID, id: id, by: author, action: .reinstated) { persona in
            guard persona.status == .suspended else { throw APIError.conflict("not_suspended", "This persona is not suspended.") }
            return (.reinstate, nil)
        }
    }

    private func act(tenantID: UUID, id: UUID, by author: Operator, action: PersonaReview.Action,
                     _ decide: @escaping @Sendable (PersonaView) throws -> (PersonaStore.Transition, String?)) async throws -> PersonaView {
        try await database.withTenant(tenantID) { [self] connection in
            guard let persona = try await store.find(id, forUpdate: true, on: connection) else { throw Personas.notFound }
            let (transition, note) = try decide(persona)
            let changed = try await store.apply(transition, to: id, on: connection)
            try await store.record(.init(action: action, actor: .operator, moderator: PersonaModerator(id: author.id, email: author.email), note: note),
                                   personaID: id, tenantID: tenantID, revision: persona.revision, on: connection)
            try await audit.record("persona.\(action.rawValue)", detail: "persona \(id.uuidString.lowercased()) revision \(persona.revision)"
                                       + (note.map { ": " + $0 } ?? ""), by: author, tenantID: tenantID, on: connection)
            return changed
        }
    }

    static func require(_ persona: PersonaView, status: PersonaStatus, revision: Int) throws {
        guard persona.status == status else {
            throw APIError.conflict("not_in_queue", "This persona is \(persona.status.rawValue), not waiting for review.")
        }
        guard persona.revision == revision else {
            throw APIError.conflict("stale_revision", "The creator has changed this persona since revision \(revision): read revision \(persona.revision).")
        }
    }

    static func validNote(_ note: String) throws -> String {
        let note = note.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...1000).contains(note.count) else { throw APIError.validation("Give a reason of 1 to 1000 characters; the creator sees it.") }
        return note
    }
}
