import Accounts
import Foundation
import HearthPlatform
import Hummingbird

/// Whether a user has finished a coaching session; answered by the feature that owns sessions (Coaching), so
/// Memory need not read its tables.
public protocol CompletedSessions: Sendable {
    func hasCompletedSession(tenantID: UUID, userID: UUID) async throws -> Bool
}

/// The profile as the API shows it.
public struct ContextProfileView: ResponseEncodable, Sendable, Equatable {
    public let profile: ContextProfile
    public let updatedAt: Date?
    /// True once the user has finished a session while their profile is still empty and they have not
    /// dismissed the prompt: the app asks whether the coach may remember what matters to them (FR11).
    public let setupPrompt: Bool
}

/// Viewing, editing and deleting a user's context profile.
public struct ContextProfiles: Sendable {
    let database: Database
    let keys: UserDataKeys
    let store: ContextProfileStore
    let sessions: any CompletedSessions

    public init(database: Database, keyRing: KeyRing, sessions: any CompletedSessions) {
        self.database = database
        self.keys = UserDataKeys(keyRing: keyRing, logger: database.logger)
        self.store = ContextProfileStore(logger: database.logger)
        self.sessions = sessions
    }

    func show(tenant: Tenant, identity: Identity) async throws -> ContextProfileView {
        let row = try await keys.withKey(database, tenantID: tenant.id, userID: identity.userID) { connection, key in
            try await store.load(userID: identity.userID, key: key, on: connection)
        }
        return try await view(row.profile, updatedAt: row.updatedAt, dismissed: row.setupPromptDismissed, tenant: tenant, identity: identity)
    }

    /// Applies a merge patch in one transaction (the row is locked while it is read, changed and written).
    func update(tenant: Tenant, identity: Identity, patch: [String: PatchValue]) async throws -> ContextProfileView {
        let row = try await keys.withKey(database, tenantID: tenant.id, userID: identity.userID) { connection, key in
            let stored = try await store.load(userID: identity.userID, key: key, forUpdate: true, on: connection)
            var profile = stored.profile
            try profile.apply(patch)
            let updated = try await store.save(profile, tenantID: tenant.id, userID: identity.userID, key: key, on: connection)
            return ContextProfileStore.Row(profile: profile, updatedAt: updated, setupPromptDismissed: stored.setupPromptDismissed)
        }
        return try await view(row.profile, updatedAt: row.updatedAt, dismissed: row.setupPromptDismissed, tenant: tenant, identity: identity)
    }

    func remove(_ field: ContextProfile.Field, tenant: Tenant, identity: Identity) async throws -> ContextProfileView {
        try await update(tenant: tenant, identity: identity, patch: [field.rawValue: .remove])
    }

    func removeAll(tenant: Tenant, identity: Identity) async throws {
        _ = try await keys.withKey(database, tenantID: tenant.id, userID: identity.userID) { connection, key in
            try await store.save(ContextProfile(), tenantID: tenant.id, userID: identity.userID, key: key, on: connection)
        }
    }

    func dismissSetupPrompt(tenant: Tenant, identity: Identity) async throws {
        try await database.withTenant(tenant.id) { [self] connection in
            try await store.dismissSetupPrompt(tenantID: tenant.id, userID: identity.userID, on: connection)
        }
    }

    private func view(_ profile: ContextProfile, updatedAt: Date?, dismissed: Bool, tenant: Tenant, identity: Identity) async throws -> ContextProfileView {
        let prompt = profile.isEmpty && !dismissed ? try await sessions.hasCompletedSession(tenantID: tenant.id, userID: identity.userID) : false
        return ContextProfileView(profile: profile, updatedAt: updatedAt, setupPrompt: prompt)
    }
}

/// The context profile: the `context` section of the user's data export.
extension ContextProfiles: ExportSection {
    public var name: String { "context" }

    public func export(tenant: Tenant, identity: Identity) async throws -> any Encodable & Sendable {
        try await show(tenant: tenant, identity: identity)
    }
}
