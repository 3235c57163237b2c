import Foundation

/// A tenant: one customer app (or coaching business) hosted by this Hearth deployment.
public struct Tenant: Sendable, Equatable {
    public let id: UUID
    public var slug: String
    public var name: String
    /// Minimum password length for email accounts (default 8).
    public var passwordMinLength: Int
    /// Bundle ids and Services ids accepted as the `aud` of Sign in with Apple identity tokens.
    public var appleAudiences: [String]
    /// The tenant's blind-index key (for exact lookups of encrypted values such as emails), wrapped by the
    /// master key. Unwrap with ``KeyRing`` and context ``indexKeyContext``.
    public var wrappedIndexKey: KeyRing.WrappedKey
    /// Users may see the prompt assembled for their own turns (`POST /v1/threads/{id}/prompt-preview`).
    public var promptDebug: Bool
    public let createdAt: Date

    public var indexKeyContext: String { "tenant-index:\(id.uuidString.lowercased())" }

    public init(
        id: UUID, slug: String, name: String, passwordMinLength: Int, appleAudiences: [String],
        wrappedIndexKey: KeyRing.WrappedKey, promptDebug: Bool = false, createdAt: Date
    ) {
        self.id = id
        self.slug = slug
        self.name = name
        self.passwordMinLength = passwordMinLength
        self.appleAudiences = appleAudiences
        self.wrappedIndexKey = wrappedIndexKey
        self.promptDebug = promptDebug
        self.createdAt = createdAt
    }

    public static let slugPattern = "^[a-z0-9][a-z0-9-]{1,62}$"

    /// Names the console's own pages use where a slug would go (`/console/tenants/new`): no new tenant takes one.
    public static let reservedSlugs: Set = ["new"]

    public static func isValidSlug(_ slug: String) -> Bool {
        slug.range(of: slugPattern, options: .regularExpression) != nil
    }
}
