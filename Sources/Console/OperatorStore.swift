import Foundation
import HearthPlatform
import PostgresNIO

/// An operator of the console. Staff, not end users: their email is stored in clear.
public struct Operator: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case platformAdmin = "platform_admin"
        case tenantAdmin = "tenant_admin"
        case moderator
        case viewer
    }

    public let id: UUID
    public let email: String
    public let role: Role
    public let tenantID: UUID?
}

/// Owns the `operators` table. The console (a later issue) signs operators in against it.
public struct OperatorStore: Sendable {
    let database: Database
    let hasher: PasswordHasher

    public init(database: Database, hasher: PasswordHasher) {
        self.database = database
        self.hasher = hasher
    }

    public static let minimumPasswordLength = 12

    /// Creates an operator. Platform admins have no tenant; every other role belongs to exactly one.
    public func create(email: String, password: String, role: Operator.Role, tenantID: UUID?) async throws -> Operator {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.contains("@"), email.count <= 254 else { throw ConfigError("'\(email)' is not an email address") }
        guard password.count >= Self.minimumPasswordLength else {
            throw ConfigError("operator passwords need at least \(Self.minimumPasswordLength) characters")
        }
        guard (role == .platformAdmin) == (tenantID == nil) else {
            throw ConfigError(role == .platformAdmin ? "a platform admin spans all tenants: give no tenant" : "role \(role.rawValue) needs a tenant")
        }
        let hash = try await hasher.hash(password)
        let id = UUID()
        do {
            try await database.client.query(
                """
                INSERT INTO operators (id, email, password_hash, role, tenant_id)
                VALUES (\(id), \(email), \(hash), \(role.rawValue), \(tenantID))
                """,
                logger: database.logger
            )
        } catch let error as PSQLError where error.isUniqueViolation {
            throw ConfigError("an operator with that email already exists")
        }
        return Operator(id: id, email: email, role: role, tenantID: tenantID)
    }

    public func find(email: String) async throws -> (Operator, passwordHash: String)? {
        let rows = try await database.client.query(
            "SELECT id, email, role, tenant_id, password_hash FROM operators WHERE email = \(email.lowercased())",
            logger: database.logger
        )
        for try await (id, email, role, tenantID, hash) in rows.decode((UUID, String, String, UUID?, String).self) {
            guard let role = Operator.Role(rawValue: role) else { continue }
            return (Operator(id: id, email: email, role: role, tenantID: tenantID), hash)
        }
        return nil
    }
}
