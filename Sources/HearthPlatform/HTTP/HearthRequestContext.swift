import Foundation
import Hummingbird
import NIOCore

/// What every Hearth request context carries, so platform middleware can be generic over contexts.
public protocol HearthRequestContextProtocol: RequestContext {
    var requestID: String { get set }
    var tenant: Tenant? { get set }
    var identity: Identity? { get set }
    /// On a send or a history page only: the identity its access token names, its session not yet checked — the
    /// route's first round trip checks it (decisions 0015 and 0016). Never set together with `identity`.
    var uncheckedIdentity: Identity? { get set }
    /// The operator behind an operator-API request (never set on `/v1` app routes).
    var operatorSession: OperatorSession? { get set }
    /// The peer's IP address (for per-IP throttles). Proxies are not trusted: see docs/security.md.
    var remoteAddress: String? { get }
}

/// The request context of the JSON API.
public struct HearthRequestContext: HearthRequestContextProtocol {
    public var coreContext: CoreRequestContextStorage
    public var requestID = ""
    public var tenant: Tenant?
    public var identity: Identity?
    public var uncheckedIdentity: Identity?
    public var operatorSession: OperatorSession?
    public let remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// API bodies are small JSON documents; anything larger is refused with 413 before it is buffered.
    public var maxUploadSize: Int { 64 * 1024 }

    /// JSON only, UTF-8 only, no NUL in any string (``JSONBody``).
    public var requestDecoder: APIRequestDecoder { APIRequestDecoder() }

    /// ISO 8601 dates and sorted keys: the same value always serialises to the same bytes (Foundation's
    /// key order otherwise varies between runs), which keeps responses diffable and cacheable.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension HTTPFields {
    /// The token of `Authorization: Bearer <token>` (the scheme in any case); `nil` when the header is missing or
    /// names another scheme.
    public var bearerToken: String? {
        guard let header = self[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7))
    }
}

/// The signed-in user behind a request, set by the access-token authenticator.
public struct Identity: Sendable, Equatable {
    public let userID: UUID
    public let sessionID: UUID

    public init(userID: UUID, sessionID: UUID) {
        self.userID = userID
        self.sessionID = sessionID
    }
}

extension HearthRequestContextProtocol {
    /// The tenant resolved from the client key; the tenant middleware guarantees it on `/v1` routes.
    public func requireTenant() throws -> Tenant {
        guard let tenant else {
            throw APIError.unauthorized("client_key_missing", "Send your app's client key in the X-Hearth-Client-Key header.")
        }
        return tenant
    }

    /// The signed-in operator, checked for `permission` in the request's tenant (set from the path by the
    /// operator tenant middleware). A role that may not is a 403: the operator knows the tenant exists.
    public func requireOperator(_ permission: Operator.Permission) throws -> Operator {
        let account = try requireOperatorSession().account
        guard account.may(permission, in: try requireTenant().id) else {
            throw APIError(.forbidden, code: "forbidden", message: "Your operator role (\(account.role.rawValue)) may not do this here.")
        }
        return account
    }

    /// The signed-in operator, who must be a platform admin (tenants themselves, every tenant's figures).
    public func requirePlatformAdmin() throws -> Operator {
        let account = try requireOperatorSession().account
        guard account.role == .platformAdmin else {
            throw APIError(.forbidden, code: "forbidden", message: "Only platform admins may do this.")
        }
        return account
    }

    public func requireOperatorSession() throws -> OperatorSession {
        guard let operatorSession else { throw APIError.operatorSignInRequired }
        return operatorSession
    }

    /// The identity of a send or a history page, whose session the caller must check before doing anything on its behalf.
    public func requireUncheckedIdentity() throws -> Identity {
        guard let uncheckedIdentity else {
            throw APIError.accessTokenRequired
        }
        return uncheckedIdentity
    }

    public func requireIdentity() throws -> Identity {
        guard let identity else {
            throw APIError.accessTokenRequired
        }
        return identity
    }
}
