import Foundation
import HearthPlatform

/// What support does for a person, from the operator console: find them by id or email, read their account and
/// sessions, and delete the account when they ask. Never their conversations.
extension AccountService {
    /// The person with this email in the tenant (found by its blind index, as a sign-in finds it).
    public func find(tenant: Tenant, email: String) async throws -> UUID? {
        let indexKey = try keyRing.unwrap(tenant.wrappedIndexKey, context: tenant.indexKeyContext)
        let emailIndex = FieldCipher.blindIndex(try Self.normalise(email: email), key: indexKey)
        return try await database.withTenant(tenant.id) { [self] connection in
            try await users.emailCredential(index: emailIndex, on: connection)?.userID
        }
    }

    /// Whether the tenant has this person.
    public func exists(tenant: Tenant, userID: UUID) async throws -> Bool {
        try await database.withTenant(tenant.id) { [self] connection in try await users.account(userID, on: connection) != nil }
    }

    /// The account and its sessions; `nil` when the tenant has no such person.
    public func support(tenant: Tenant, userID: UUID) async throws -> (account: AccountView, sessions: [SessionView])? {
        try await database.withTenant(tenant.id) { [self] connection in
            guard let account = try await existingView(of: userID, on: connection) else { return nil }
            return (account, try await sessions.list(userID: userID, on: connection).map { Self.view($0, current: nil) })
        }
    }

    /// Deletes the account and everything it owns on the person's request, audited in the same transaction.
    public func delete(tenant: Tenant, userID: UUID, audit: Audited) async throws {
        let deleted = try await database.withTenant(tenant.id) { [self] connection in
            guard try await users.delete(userID, on: connection) else { return false }
            try await audit.record("user.delete", "user \(userID.uuidString.lowercased())", tenantID: tenant.id, on: connection)
            return true
        }
        guard deleted else { throw APIError.notFound("No such user.") }
    }
}
