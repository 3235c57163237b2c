import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// The account flows: anonymous start, email and Apple sign-in (and upgrading an anonymous account to
/// either), token refresh and revocation, deletion and export.
public struct AccountService: Sendable {
    let database: Database
    let keyRing: KeyRing
    let hasher: PasswordHasher
    let tokens: AccessTokens
    let apple: AppleIdentityVerifier
    let users: UserStore
    let sessions: SessionStore
    let throttle: LoginThrottle
    /// Verified against when an email has no account, so both cases cost the same time.
    let decoyHash: String

    static let maxPasswordBytes = 1024

    public static func make(
        database: Database, keyRing: KeyRing, configuration: AccountsConfiguration, apple: AppleIdentityVerifier
    ) async throws -> AccountService {
        let hasher = PasswordHasher(cost: configuration.passwordCost)
        return AccountService(
            database: database,
            keyRing: keyRing,
            hasher: hasher,
            tokens: AccessTokens(keyRing: keyRing, lifetime: configuration.accessTokenLifetime),
            apple: apple,
            users: UserStore(keyRing: keyRing, logger: database.logger),
            sessions: SessionStore(refreshLifetime: configuration.refreshTokenLifetime, logger: database.logger),
            throttle: LoginThrottle(policy: configuration.loginThrottle, logger: database.logger),
            decoyHash: try await hasher.hash(Secrets.randomHex(byteCount: 16))
        )
    }

    // MARK: - Signing in

    public func createAnonymous(tenant: Tenant) async throws -> TokenGrant {
        let (userID, sessionID, refresh) = try await database.withTenant(tenant.id) { [self] connection in
            let (userID, _) = try await users.create(tenantID: tenant.id, anonymous: true, on: connection)
            let (sessionID, refresh) = try await sessions.create(tenantID: tenant.id, userID: userID, method: .anonymous, on: connection)
            return (userID, sessionID, refresh)
        }
        return try await grant(tenant: tenant, userID: userID, sessionID: sessionID, refreshToken: refresh, isNewUser: true)
    }

    /// Creates an email account, or — when `current` is an anonymous user — attaches the email to it,
    /// keeping its id and everything it owns.
    public func signUp(tenant: Tenant, email rawEmail: String, password: String, current: Identity?) async throws -> TokenGrant {
        let email = try Self.normalise(email: rawEmail)
        try Self.validate(password: password, minimumLength: tenant.passwordMinLength)
        let passwordHash = try await hasher.hash(password)
        let indexKey = try keyRing.unwrap(tenant.wrappedIndexKey, context: tenant.indexKeyContext)
        let emailIndex = FieldCipher.blindIndex(email, key: indexKey)

        let (userID, sessionID, refresh, isNew) = try await database.withTenant(tenant.id) { [self] connection in
            let userID: UUID
            let dataKey: SymmetricKey
            if let current {
                guard let account = try await users.account(current.userID, on: connection),
                      let key = try await users.dataKey(of: current.userID, on: connection)
                else { throw APIError.unauthorized("authentication_required", "This account no longer exists.") }
                guard account.emailCiphertext == nil else {
                    throw APIError.conflict("already_registered", "This account already has an email address.")
                }
                (userID, dataKey) = (current.userID, key)
            } else {
                (userID, dataKey) = try await users.create(tenantID: tenant.id, anonymous: false, on: connection)
            }
            let ciphertext = try FieldCipher.seal(email, key: dataKey, context: UserStore.emailContext(userID))
            guard try await users.addEmailCredential(
                tenantID: tenant.id, userID: userID, emailIndex: emailIndex, emailCiphertext: ciphertext,
                passwordHash: passwordHash, on: connection
            ) else {
                throw APIError.conflict("email_taken", "An account with this email already exists. Sign in instead.")
            }
            try await users.markIdentified(userID, on: connection)
            if let current {
                _ = try await sessions.revoke(current.sessionID, userID: userID, reason: "upgraded", on: connection)
            }
            let (sessionID, refresh) = try await sessions.create(tenantID: tenant.id, userID: userID, method: .email, on: connection)
            return (userID, sessionID, refresh, current == nil)
        }
        return try await grant(tenant: tenant, userID: userID, sessionID: sessionID, refreshToken: refresh, isNewUser: isNew)
    }

    public func logIn(tenant: Tenant, email rawEmail: String, password: String, address: String?) async throws -> TokenGrant {
        let email = try Self.normalise(email: rawEmail)
        guard !password.isEmpty, password.utf8.count <= Self.maxPasswordBytes else { throw Self.invalidCredentials }
        let indexKey = try keyRing.unwrap(tenant.wrappedIndexKey, context: tenant.indexKeyContext)
        let emailIndex = FieldCipher.blindIndex(email, key: indexKey)
        let throttleKeys = throttle.keys(accountIdentifier: email, address: address, indexKey: indexKey)

        // Count the attempt and commit before checking the password (see LoginThrottle).
        let (retryAfter, credential) = try await database.withTenant(tenant.id) { [self] connection in
            let retryAfter = try await throttle.reserve(throttleKeys, tenantID: tenant.id, on: connection)
            return (retryAfter, try await users.emailCredential(index: emailIndex, on: connection))
        }
        if let retryAfter {
            throw APIError.tooManyRequests("too_many_attempts", "Too many sign-in attempts. Try again later.", retryAfter: retryAfter)
        }
        let matches = try await hasher.verify(password, against: credential?.passwordHash ?? decoyHash)
        guard matches, let credential else { throw Self.invalidCredentials }

        let (sessionID, refresh) = try await database.withTenant(tenant.id) { [self] connection in
            try await throttle.release(throttleKeys, on: connection)
            return try await sessions.create(tenantID: tenant.id, userID: credential.userID, method: .email, on: connection)
        }
        return try await grant(tenant: tenant, userID: credential.userID, sessionID: sessionID, refreshToken: refresh, isNewUser: false)
    }

    /// Signs in with Apple: the linked account, else links the Apple ID to `current` (upgrade), else a new account.
    public func signInWithApple(tenant: Tenant, identityToken: String, nonce: String, current: Identity?) async throws -> TokenGrant {
        let identity = try await apple.verify(identityToken, audiences: tenant.appleAudiences, nonce: nonce)
        let indexKey = try keyRing.unwrap(tenant.wrappedIndexKey, context: tenant.indexKeyContext)
        let subjectIndex = FieldCipher.blindIndex("apple:" + identity.subject, key: indexKey)

        let (userID, sessionID, refresh, isNew) = try await database.withTenant(tenant.id) { [self] connection in
            let linked = try await users.appleUser(subjectIndex: subjectIndex, on: connection)
            let userID: UUID
            var isNew = false
            switch (linked, current) {
            case (let linked?, let current?) where linked != current.userID:
                throw APIError.conflict("apple_id_in_use", "This Apple ID already belongs to another account.")
            case (let linked?, _):
                userID = linked
            case (nil, let current?):
                guard try await users.linkApple(tenantID: tenant.id, userID: current.userID, subjectIndex: subjectIndex, on: connection) else {
                    throw APIError.conflict("already_linked", "This account is already linked to another Apple ID.")
                }
                try await users.markIdentified(current.userID, on: connection)
                _ = try await sessions.revoke(current.sessionID, userID: current.userID, reason: "upgraded", on: connection)
                userID = current.userID
            case (nil, nil):
                (userID, _) = try await users.create(tenantID: tenant.id, anonymous: false, on: connection)
                guard try await users.linkApple(tenantID: tenant.id, userID: userID, subjectIndex: subjectIndex, on: connection) else {
                    throw APIError.conflict("apple_id_in_use", "This Apple ID was just linked to another account. Try again.")
                }
                isNew = true
            }
            let (sessionID, refresh) = try await sessions.create(tenantID: tenant.id, userID: userID, method: .apple, on: connection)
            return (userID, sessionID, refresh, isNew)
        }
        return try await grant(tenant: tenant, userID: userID, sessionID: sessionID, refreshToken: refresh, isNewUser: isNew)
    }

    public func refresh(tenant: Tenant, refreshToken: String) async throws -> TokenGrant {
        guard refreshToken.hasPrefix("hrt_"), refreshToken.count < 128 else {
            throw APIError.unauthorized("refresh_token_invalid", "This refresh token is not valid. Sign in again.")
        }
        let outcome = try await database.withTenant(tenant.id) { [self] connection in
            try await sessions.exchange(refreshToken, tenantID: tenant.id, on: connection)
        }
        switch outcome {
        case .rotated(let userID, let sessionID, let next):
            return try await grant(tenant: tenant, userID: userID, sessionID: sessionID, refreshToken: next, isNewUser: false)
        case .reused:
            throw APIError.unauthorized("refresh_token_reused",
                                        "This refresh token was already used, so the session has been signed out for safety. Sign in again.")
        case .revoked:
            throw APIError.sessionRevoked
        case .expired:
            throw APIError.unauthorized("refresh_token_expired", "This session has expired. Sign in again.")
        case .unknown:
            throw APIError.unauthorized("refresh_token_invalid", "This refresh token is not valid. Sign in again.")
        }
    }

    // MARK: - Signed-in requests

    /// Checks a bearer token: signature, expiry, tenant, and that its session is still live.
    /// The identity behind an access token, with the request counted against its rate limits (the same round
    /// trip as the live-session check). Throws the 429 when a limit is exceeded.
    public func authenticate(tenant: Tenant, bearer: String) async throws -> (Identity, RateLimit) {
        let identity = try await verify(tenant: tenant, bearer: bearer)
        let gate = try await sessions.admit(identity.sessionID, userID: identity.userID, tenantID: tenant.id, on: database.client)
        return (identity, try gate.admit())
    }

    /// The identity an access token names, from its signature, expiry and tenant alone: the session is not
    /// checked. Only for a route that checks it in its own first round trip (a send, decision 0015).
    public func verify(tenant: Tenant, bearer: String) async throws -> Identity {
        guard let verified = tokens.verify(bearer), verified.tenantID == tenant.id else {
            throw APIError.unauthorized("access_token_invalid", "The access token is invalid or has expired. Refresh it.")
        }
        return Identity(userID: verified.userID, sessionID: verified.sessionID)
    }

    public func logOut(tenant: Tenant, identity: Identity) async throws {
        _ = try await database.withTenant(tenant.id) { [self] connection in
            try await sessions.revoke(identity.sessionID, userID: identity.userID, reason: "logout", on: connection)
        }
    }

    public func account(tenant: Tenant, identity: Identity) async throws -> AccountView {
        try await database.withTenant(tenant.id) { [self] connection in
            try await view(of: identity.userID, on: connection)
        }
    }

    public func sessions(tenant: Tenant, identity: Identity) async throws -> [SessionView] {
        try await database.withTenant(tenant.id) { [self] connection in
            try await sessions.list(userID: identity.userID, on: connection).map { Self.view($0, current: identity.sessionID) }
        }
    }

    /// Signs out one of the user's sessions (another device). Someone else's session id is simply not found.
    public func revokeSession(tenant: Tenant, identity: Identity, sessionID: UUID) async throws {
        let revoked = try await database.withTenant(tenant.id) { [self] connection in
            try await sessions.revoke(sessionID, userID: identity.userID, reason: "signed_out_remotely", on: connection)
        }
        guard revoked else { throw APIError.notFound("No such session.") }
    }

    /// Deletes the account and everything it owns, in one transaction.
    public func delete(tenant: Tenant, identity: Identity) async throws {
        // The cascade takes locks in table order while writes beside it take them in theirs: Postgres may pick the
        // deletion as a deadlock's victim (40P01). The deletion must still happen, so it is tried again.
        var attempt = 1
        while true {
            do {
                let deleted = try await database.withTenant(tenant.id) { [self] connection in
                    try await users.delete(identity.userID, on: connection)
                }
                guard deleted else { throw APIError.notFound("This account no longer exists.") }
                return
            } catch let error as PSQLError where error.sqlState == "40P01" && attempt < 5 {
                attempt += 1
            }
        }
    }

    public func export(tenant: Tenant, identity: Identity) async throws -> AccountExport {
        try await database.withTenant(tenant.id) { [self] connection in
            AccountExport(
                exportedAt: Date(),
                account: try await view(of: identity.userID, on: connection),
                sessions: try await sessions.list(userID: identity.userID, on: connection).map { Self.view($0, current: identity.sessionID) }
            )
        }
    }

    // MARK: - Key rotation

    /// Re-wraps this tenant's user data keys under the current master key, in small batches so the server
    /// keeps serving meanwhile (rows being rewrapped are skipped, not waited for, by other rotations).
    public func rewrapUserKeys(tenantID: UUID, batchSize: Int = 500) async throws -> Int {
        var total = 0
        while true {
            let count = try await database.withTenant(tenantID) { [self] connection in
                try await users.rewrapBatch(limit: batchSize, on: connection)
            }
            total += count
            if count < batchSize { return total }
        }
    }

    // MARK: - Helpers

    private func grant(tenant: Tenant, userID: UUID, sessionID: UUID, refreshToken: String, isNewUser: Bool) async throws -> TokenGrant {
        let user = try await account(tenant: tenant, identity: Identity(userID: userID, sessionID: sessionID))
        return TokenGrant(
            user: user,
            isNewUser: isNewUser,
            accessToken: tokens.issue(userID: userID, sessionID: sessionID, tenantID: tenant.id),
            expiresIn: Int(tokens.lifetime.components.seconds),
            refreshToken: refreshToken
        )
    }

    func view(of userID: UUID, on connection: PostgresConnection) async throws -> AccountView {
        guard let view = try await existingView(of: userID, on: connection) else { throw APIError.notFound("This account no longer exists.") }
        return view
    }

    /// `nil` when the tenant has no such user.
    func existingView(of userID: UUID, on connection: PostgresConnection) async throws -> AccountView? {
        guard let account = try await users.account(userID, on: connection) else { return nil }
        var email: String?
        if let ciphertext = account.emailCiphertext, let key = try await users.dataKey(of: userID, on: connection) {
            email = try FieldCipher.open(ciphertext, key: key, context: UserStore.emailContext(userID))
        }
        var methods: [String] = []
        if account.emailCiphertext != nil { methods.append("email") }
        if account.appleLinked { methods.append("apple") }
        return AccountView(id: account.id, createdAt: account.createdAt, isAnonymous: account.isAnonymous, email: email, signInMethods: methods)
    }

    static func view(_ session: SessionStore.Session, current: UUID?) -> SessionView {
        SessionView(
            id: session.id, method: session.method, createdAt: session.createdAt, lastUsedAt: session.lastUsedAt,
            current: session.id == current, revokedAt: session.revokedAt, revokedReason: session.revokedReason
        )
    }

    static let invalidCredentials = APIError.unauthorized("invalid_credentials", "The email or password is not right.")

    /// Trimmed and lower-cased; a light shape check (the real test of an address is mail reaching it).
    static func normalise(email: String) throws -> String {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw APIError.validation("That does not look like an email address.") }
        return email
    }

    static func validate(password: String, minimumLength: Int) throws {
        guard password.count >= minimumLength else {
            throw APIError.validation("Passwords need at least \(minimumLength) characters.")
        }
        guard password.utf8.count <= maxPasswordBytes else {
            throw APIError.validation("Passwords can be at most \(maxPasswordBytes) bytes long.")
        }
    }
}
