import Foundation

/// An operator of the console and the operator API: staff, not end users (their email is stored in clear).
///
/// It lives in the platform because every feature's operator routes check it: the request context carries the
/// signed-in operator, and ``may(_:in:)`` is the one place that says which role may do what where.
public struct Operator: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case platformAdmin = "platform_admin"
        case tenantAdmin = "tenant_admin"
        case moderator
        case viewer
    }

    /// What an operator route asks of its caller.
    public enum Permission: Sendable {
        /// Read a tenant's operator data (queues, metrics, costs): every role.
        case view
        /// Decide on creator content (approve, reject, suspend): moderators and admins.
        case moderate
        /// Change a tenant's settings and policies: admins.
        case administer
    }

    public let id: UUID
    public let email: String
    public let role: Role
    /// The tenant a tenant-scoped role works in; `nil` for a platform admin, who spans them all.
    public let tenantID: UUID?

    public init(id: UUID, email: String, role: Role, tenantID: UUID?) {
        self.id = id
        self.email = email
        self.role = role
        self.tenantID = tenantID
    }

    /// Whether this operator may do `permission` in the tenant `tenantID`.
    public func may(_ permission: Permission, in tenantID: UUID) -> Bool {
        guard role == .platformAdmin || self.tenantID == tenantID else { return false }
        switch permission {
        case .view: return true
        case .moderate: return role != .viewer
        case .administer: return role == .platformAdmin || role == .tenantAdmin
        }
    }
}

/// A signed-in operator behind a request, set by the operator authenticator.
public struct OperatorSession: Sendable, Equatable {
    public let id: UUID
    public let account: Operator

    public init(id: UUID, account: Operator) {
        self.id = id
        self.account = account
    }
}
