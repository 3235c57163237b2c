import CoachingDomains
import Foundation
import HearthPlatform
import Logging
import PostgresNIO
import Safety

/// Creator personas (FR23, FR24): a user writes one, edits it, submits it for review, and, once approved, it can
/// be shared. Submitting screens the working copy (``PersonaScreening``); by the tenant's review policy a
/// persona the screening passes is approved at once (`flagged`, the default) or waits for a moderator like the
/// flagged ones (`all`). Moderators act through ``PersonaModeration``.
public struct Personas: Sendable {
    /// How submissions are reviewed (`persona_settings.review`).
    public enum ReviewPolicy: String, Sendable, Codable, CaseIterable {
        /// The screening approves what it passes; what it flags waits for a moderator.
        case flagged
        /// Every submission waits for a moderator.
        case all
    }

    let database: Database
    let domains: CoachingDomains
    let screening: PersonaScreening
    let store: PersonaStore

    /// A creator's personas at most: enough for any coach, few enough that nobody floods the moderation queue.
    public static let maximumPerCreator = 20

    public init(database: Database, domains: CoachingDomains, screening: PersonaScreening = PersonaScreening()) {
        self.database = database
        self.domains = domains
        self.screening = screening
        self.store = PersonaStore(logger: database.logger)
    }

    static let notFound = APIError.notFound("No such persona.")

    public func create(tenant: Tenant, identity: Identity, content: PersonaContent) async throws -> PersonaView {
        let content = try await validated(content, tenant: tenant)
        return try await database.withTenant(tenant.id) { [self] connection in
            guard try await store.count(creatorID: identity.userID, on: connection) < Self.maximumPerCreator else {
                throw APIError.conflict("persona_limit", "You can have at most \(Self.maximumPerCreator) personas: delete one first.")
            }
            return try await store.create(tenantID: tenant.id, creatorID: identity.userID, content: content, on: connection)
        }
    }

    public func list(tenant: Tenant, identity: Identity) async throws -> [PersonaView] {
        try await database.withTenant(tenant.id) { [self] connection in try await store.list(creatorID: identity.userID, on: connection) }
    }

    public func persona(tenant: Tenant, identity: Identity, id: UUID) async throws -> PersonaView {
        try await database.withTenant(tenant.id) { [self] connection in
            guard let persona = try await store.find(id, creatorID: identity.userID, on: connection) else { throw Self.notFound }
            return persona
        }
    }

    /// Replaces the working copy. An approved persona stays live as it was until the edit is approved.
    public func update(tenant: Tenant, identity: Identity, id: UUID, content: PersonaContent) async throws -> PersonaView {
        let content = try await validated(content, tenant: tenant)
        return try await edit(tenant: tenant, identity: identity, id: id) { connection, _ in
            try await store.edit(id, content: content, avatarID: nil, on: connection)
        }
    }

    public func delete(tenant: Tenant, identity: Identity, id: UUID) async throws {
        let deleted = try await database.withTenant(tenant.id) { [self] connection in
            try await store.delete(id, creatorID: identity.userID, on: connection)
        }
        guard deleted else { throw Self.notFound }
    }

    /// Screens the working copy and queues it, or approves it when the screening passes it and the tenant's
    /// policy lets the screening decide.
    public func submit(tenant: Tenant, identity: Identity, id: UUID) async throws -> PersonaView {
        let catalog = try await domains.currentCatalog(tenantID: tenant.id)
        return try await database.withTenant(tenant.id) { [self] connection in
            guard let persona = try await store.find(id, creatorID: identity.userID, forUpdate: true, on: connection) else { throw Self.notFound }
            switch persona.status {
            case .suspended: throw Self.suspended
            case .submitted: throw APIError.conflict("already_submitted", "This persona is already waiting for review.")
            case .approved: throw APIError.conflict("nothing_to_submit", "This version is already approved: edit it to submit a new one.")
            case .rejected: throw APIError.conflict("edit_required", "This version was rejected: edit it before submitting again.")
            case .draft: break
            }
            // The domain may have been disabled since the last edit.
            guard catalog.definition(persona.draft.domain) != nil else {
                throw APIError.validation("domain '\(persona.draft.domain)' is no longer one of this app's coaching domains: edit the persona.")
            }
            let result = screening.screen(persona.draft.fields)
            try await store.record(.init(action: .submitted, actor: .creator), personaID: id, tenantID: tenant.id, revision: persona.revision, on: connection)
            try await store.record(.init(action: .screened, actor: .screening, screening: result), personaID: id, tenantID: tenant.id,
                                   revision: persona.revision, on: connection)
            if result.verdict == .pass, try await store.reviewPolicy(on: connection) == .flagged {
                let approved = try await store.apply(.approve(result), to: id, on: connection)
                try await store.record(.init(action: .approved, actor: .screening), personaID: id, tenantID: tenant.id,
                                       revision: persona.revision, on: connection)
                return approved
            }
            return try await store.apply(.submit(result), to: id, on: connection)
        }
    }

    /// A live persona's published copy (approved and not suspended), to start a thread with: any user of the
    /// app may, not only its creator. `nil` when there is no such live persona.
    public func published(tenantID: UUID, id: UUID) async throws -> PersonaContent? {
        try await database.withTenant(tenantID) { [self] connection in try await store.published(id, on: connection)?.content }
    }

    // MARK: Avatars

    /// A new avatar for the working copy: an edit like any other.
    public func setAvatar(tenant: Tenant, identity: Identity, id: UUID, bytes: [UInt8], contentType: String?) async throws -> PersonaView {
        let image = try AvatarImage(bytes: bytes, contentType: contentType)
        return try await edit(tenant: tenant, identity: identity, id: id) { connection, _ in
            let avatarID = try await store.addAvatar(image, tenantID: tenant.id, personaID: id, on: connection)
            return try await store.edit(id, content: nil, avatarID: .some(avatarID), on: connection)
        }
    }

    public func removeAvatar(tenant: Tenant, identity: Identity, id: UUID) async throws -> PersonaView {
        try await edit(tenant: tenant, identity: identity, id: id) { connection, persona in
            guard persona.hasAvatar else { return persona }
            return try await store.edit(id, content: nil, avatarID: .some(nil), on: connection)
        }
    }

    /// The working copy's avatar, for its creator.
    func avatar(tenant: Tenant, identity: Identity, id: UUID) async throws -> AvatarImage {
        try await database.withTenant(tenant.id) { [self] connection in
            guard let image = try await store.avatar(personaID: id, published: false, creatorID: identity.userID, on: connection) else {
                throw APIError.notFound("This persona has no avatar.")
            }
            return image
        }
    }

    // MARK: Settings

    public static func setReviewPolicy(database: Database, tenantID: UUID, _ policy: ReviewPolicy) async throws {
        try await database.withTenant(tenantID) { connection in
            try await PersonaStore(logger: database.logger).setReviewPolicy(policy, tenantID: tenantID, on: connection)
        }
    }

    // MARK: Helpers

    static let suspended = APIError.conflict("persona_suspended", "This persona is suspended by a moderator and cannot be changed.")

    /// Runs an edit of the creator's persona, locked, refusing a suspended one.
    private func edit(tenant: Tenant, identity: Identity, id: UUID,
                      _ body: @escaping @Sendable (PostgresConnection, PersonaView) async throws -> PersonaView) async throws -> PersonaView {
        try await database.withTenant(tenant.id) { [self] connection in
            guard let persona = try await store.find(id, creatorID: identity.userID, forUpdate: true, on: connection) else { throw Self.notFound }
            guard persona.status != .suspended else { throw Self.suspended }
            return try await body(connection, persona)
        }
    }

    private func validated(_ content: PersonaContent, tenant: Tenant) async throws -> PersonaContent {
        let catalog = try await domains.currentCatalog(tenantID: tenant.id)
        return try content.validated(domains: Set(catalog.enabled.map(\.key)))
    }
}
