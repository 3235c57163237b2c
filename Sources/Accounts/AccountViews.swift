import Foundation
import HearthPlatform
import Hummingbird

/// What the API shows of an account. Never the password hash, data key or index values.
public struct AccountView: ResponseEncodable, Sendable, Equatable {
    public let id: UUID
    public let createdAt: Date
    public let isAnonymous: Bool
    public let email: String?
    public let signInMethods: [String]
}

/// The answer to every sign-in: who you are and the tokens to stay signed in.
public struct TokenGrant: ResponseEncodable, Sendable {
    public let user: AccountView
    public let isNewUser: Bool
    public let tokenType = "Bearer"
    public let accessToken: String
    /// Seconds until `accessToken` expires.
    public let expiresIn: Int
    /// Single use: exchange it at `/v1/auth/refresh` for a new pair. Presenting it twice revokes the session.
    public let refreshToken: String
}

public struct SessionView: Encodable, Sendable {
    public let id: UUID
    public let method: String
    public let createdAt: Date
    public let lastUsedAt: Date
    public let current: Bool
    public let revokedAt: Date?
    public let revokedReason: String?
}

public struct SessionList: ResponseEncodable, Sendable {
    public let sessions: [SessionView]
}

/// `GET /v1/me/export`: everything Hearth holds about the user, decrypted, as one JSON document. Accounts
/// writes the account and its sessions; every other feature adds its part as an ``ExportSection``.
public struct AccountExport: ResponseEncodable, Sendable {
    public let format = "hearth.export.v1"
    public let exportedAt: Date
    public let account: AccountView
    public let sessions: [SessionView]
    /// The other features' parts, by section name.
    public var sections: [String: any Encodable & Sendable] = [:]

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(format, forKey: Key("format"))
        try container.encode(exportedAt, forKey: Key("exportedAt"))
        try container.encode(account, forKey: Key("account"))
        try container.encode(sessions, forKey: Key("sessions"))
        for (name, section) in sections { try container.encode(section, forKey: Key(name)) }
    }
}

/// A feature's part of the user's data export: what it holds about the user, decrypted, under `name`.
public protocol ExportSection: Sendable {
    var name: String { get }
    func export(tenant: Tenant, identity: Identity) async throws -> any Encodable & Sendable
}
