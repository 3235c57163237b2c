import Foundation
import Logging
import PostgresNIO

/// Owns `tenants` and `tenant_client_keys`: platform tables, not tenant-scoped, because the tenant is what
/// a request's client key resolves to.
public struct TenantStore: Sendable {
    public enum ClientKeyLookup: Sendable, Equatable {
        case active(Tenant)
        case revoked
        case unknown
    }

    public struct Settings: Sendable {
        public var name: String?
        public var passwordMinLength: Int?
        public var appleAudiences: [String]?
        public var promptDebug: Bool?

        public init(name: String? = nil, passwordMinLength: Int? = nil, appleAudiences: [String]? = nil, promptDebug: Bool? = nil) {
            self.name = name
            self.passwordMinLength = passwordMinLength
            self.appleAudiences = appleAudiences
            self.promptDebug = promptDebug
        }
    }

    let database: Database
    let keyRing: KeyRing

    public init(database: Database, keyRing: KeyRing) {
        self.database = database
        self.keyRing = keyRing
    }

    static let columns = "t.id, t.slug, t.name, t.password_min_length, t.apple_audiences, t.index_key_version, t.index_key_wrapped, t.prompt_debug, t.created_at"
    typealias Row = (UUID, String, String, Int, [String], Int, Data, Bool, Date)

    static func tenant(_ row: Row) -> Tenant {
        Tenant(
            id: row.0, slug: row.1, name: row.2, passwordMinLength: row.3, appleAudiences: row.4,
            wrappedIndexKey: .init(masterVersion: row.5, sealed: Array(row.6)), promptDebug: row.7, createdAt: row.8
        )
    }

    /// Creates a tenant and its first client key; an operator's creation (`audited`) is in the audit log.
    public func create(slug: String, name: String, settings: Settings = .init(),
                       audited: Audited? = nil) async throws -> (tenant: Tenant, clientKey: String) {
        guard Tenant.isValidSlug(slug), !Tenant.reservedSlugs.contains(slug) else {
            throw ConfigError("tenant slug must be 2–63 characters of a–z, 0–9 and -, starting with a letter or digit, and not 'new'")
        }
        let minLength = settings.passwordMinLength ?? 8
        try Self.validate(passwordMinLength: minLength)
        let id = RandomBytes.uuid()
        let indexKey = try keyRing.wrap(keyRing.generateDataKey(), context: "tenant-index:\(id.uuidString.lowercased())")
        let clientKey = Self.newClientKey()
        return try await database.withPlatformTransaction { [self] connection in
            do {
                try await connection.query(
                    """
                    INSERT INTO tenants (id, slug, name, password_min_length, apple_audiences, index_key_version, index_key_wrapped, prompt_debug)
                    VALUES (\(id), \(slug), \(name), \(minLength), \(settings.appleAudiences ?? []), \(indexKey.masterVersion), \(Data(indexKey.sealed)),
                            \(settings.promptDebug ?? false))
                    """,
                    logger: database.logger
                )
            } catch let error as PSQLError where error.isUniqueViolation {
                throw ConfigError("a tenant with slug '\(slug)' already exists", isConflict: true)
            }
            try await connection.query(
                "INSERT INTO tenant_client_keys (key, tenant_id) VALUES (\(clientKey), \(id))", logger: database.logger
            )
            guard let tenant = try await Self.find(slug: slug, on: connection, logger: database.logger) else {
                throw ConfigError("tenant vanished while being created")
            }
            try await audited?.record("tenant.create", "\(slug) (\(name))", tenantID: id, on: connection)
            return (tenant, clientKey)
        }
    }

    public func update(slug: String, settings: Settings, audited: Audited? = nil) async throws -> Tenant {
        if let minLength = settings.passwordMinLength { try Self.validate(passwordMinLength: minLength) }
        return try await database.withPlatformTransaction { [self] connection in
            try await connection.query(
                """
                UPDATE tenants SET
                    name = coalesce(\(settings.name), name),
                    password_min_length = coalesce(\(settings.passwordMinLength), password_min_length),
                    apple_audiences = coalesce(\(settings.appleAudiences), apple_audiences),
                    prompt_debug = coalesce(\(settings.promptDebug), prompt_debug)
                WHERE slug = \(slug)
                """,
                logger: database.logger
            )
            guard let tenant = try await Self.find(slug: slug, on: connection, logger: database.logger) else {
                throw ConfigError("no tenant with slug '\(slug)'")
            }
            try await audited?.record("tenant.settings", Self.describe(settings), tenantID: tenant.id, on: connection)
            return tenant
        }
    }

    /// The settings a change set, for the audit log.
    static func describe(_ settings: Settings) -> String {
        [settings.name.map { "name=\($0)" }, settings.passwordMinLength.map { "password_min_length=\($0)" },
         settings.appleAudiences.map { "bundle_ids=\($0.joined(separator: ","))" }, settings.promptDebug.map { "prompt_debug=\($0)" }]
            .compactMap { $0 }.joined(separator: " ")
    }

    public func list() async throws -> [Tenant] {
        let rows = try await database.client.liveRows(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM tenants t ORDER BY t.created_at, t.slug"),
            logger: database.logger
        )
        var tenants: [Tenant] = []
        for row in try rows.decode(Row.self) { tenants.append(Self.tenant(row)) }
        return tenants
    }

    /// `nil` for a slug no tenant has, or one that could not be a slug (from a URL: not worth a query).
    public func find(slug: String) async throws -> Tenant? {
        guard Tenant.isValidSlug(slug) else { return nil }
        return try await database.withPlatformTransaction { [self] connection in
            try await Self.find(slug: slug, on: connection, logger: database.logger)
        }
    }

    /// The hot lookup behind every API request: one indexed query.
    public func lookup(clientKey: String) async throws -> ClientKeyLookup {
        var query = PostgresQuery(
            unsafeSQL: """
            SELECT \(Self.columns), k.revoked_at IS NOT NULL
            FROM tenant_client_keys k JOIN tenants t ON t.id = k.tenant_id
            WHERE k.key = $1
            """
        )
        query.binds.append(clientKey)
        let rows = try await database.client.liveRows(query, logger: database.logger)
        for row in try rows.decode((UUID, String, String, Int, [String], Int, Data, Bool, Date, Bool).self) {
            if row.9 { return .revoked }
            return .active(Self.tenant((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8)))
        }
        return .unknown
    }

    /// Adds a client key; older keys keep working until revoked, so apps can be updated without downtime.
    public func addClientKey(slug: String, audited: Audited? = nil) async throws -> String {
        let key = Self.newClientKey()
        try await database.withPlatformTransaction { [self] connection in
            guard let tenant = try await Self.find(slug: slug, on: connection, logger: database.logger) else {
                throw ConfigError("no tenant with slug '\(slug)'")
            }
            try await connection.query(
                "INSERT INTO tenant_client_keys (key, tenant_id) VALUES (\(key), \(tenant.id))", logger: database.logger
            )
            try await audited?.record("tenant.key.add", Self.abbreviate(key), tenantID: tenant.id, on: connection)
        }
        return key
    }

    /// Revokes one of the tenant's keys, but never its last working one (every copy of its app would stop).
    /// `false` when it is not an active key of the tenant's or is the last one.
    public func revokeClientKey(_ key: String, tenantID: UUID, audited: Audited) async throws -> Bool {
        try await database.withPlatformTransaction { [self] connection in
            // Two revocations at once must not both see the other key still working.
            try await connection.query("SELECT 1 FROM tenants WHERE id = \(tenantID) FOR UPDATE", logger: database.logger)
            let rows = try await connection.query(
                """
                UPDATE tenant_client_keys SET revoked_at = now()
                WHERE key = \(key) AND tenant_id = \(tenantID) AND revoked_at IS NULL AND EXISTS (
                    SELECT 1 FROM tenant_client_keys o WHERE o.tenant_id = \(tenantID) AND o.revoked_at IS NULL AND o.key <> \(key))
                RETURNING 1
                """,
                logger: database.logger
            )
            guard try await rows.collect().count == 1 else { return false }
            try await audited.record("tenant.key.revoke", Self.abbreviate(key), tenantID: tenantID, on: connection)
            return true
        }
    }

    /// A client key as the audit log names it: enough to tell keys apart.
    static func abbreviate(_ key: String) -> String { String(key.prefix(10)) + "…" }

    /// Any active key, even a tenant's last: the CLI's break-glass path for a key that must stop now (the
    /// console's ``revokeClientKey(_:tenantID:audited:)`` keeps one working). `false` when there was no such key.
    public func revokeClientKey(_ key: String) async throws -> Bool {
        try await database.withPlatformTransaction { [self] connection in
            let rows = try await connection.query(
                "UPDATE tenant_client_keys SET revoked_at = now() WHERE key = \(key) AND revoked_at IS NULL RETURNING 1",
                logger: database.logger
            )
            return try await rows.collect().count == 1
        }
    }

    /// Re-seals every tenant's index key under the current master key; returns how many changed.
    public func rewrapIndexKeys() async throws -> Int {
        var count = 0
        for tenant in try await list() where tenant.wrappedIndexKey.masterVersion != keyRing.current.version {
            let rewrapped = try keyRing.rewrap(tenant.wrappedIndexKey, context: tenant.indexKeyContext)
            try await database.client.liveRows(
                """
                UPDATE tenants SET index_key_version = \(rewrapped.masterVersion), index_key_wrapped = \(Data(rewrapped.sealed))
                WHERE id = \(tenant.id) AND index_key_version = \(tenant.wrappedIndexKey.masterVersion)
                """,
                logger: database.logger
            )
            count += 1
        }
        return count
    }

    static func find(slug: String, on connection: PostgresConnection, logger: Logger) async throws -> Tenant? {
        var query = PostgresQuery(unsafeSQL: "SELECT \(columns) FROM tenants t WHERE t.slug = $1")
        query.binds.append(slug)
        for try await row in try await connection.query(query, logger: logger).decode(Row.self) {
            return tenant(row)
        }
        return nil
    }

    static func validate(passwordMinLength: Int) throws {
        guard (8...128).contains(passwordMinLength) else {
            throw ConfigError("password minimum length must be between 8 and 128")
        }
    }

    /// Publishable (it ships inside the app), so it is stored as is; unguessable so it cannot be enumerated.
    static func newClientKey() -> String { "hpk_" + Secrets.randomToken(byteCount: 24) }
}

extension TenantStore {
    /// The tenant's client keys that still work and when each was made, oldest first.
    public func activeClientKeys(tenantID: UUID) async throws -> [(key: String, createdAt: Date)] {
        let rows = try await database.client.liveRows(
            "SELECT key, created_at FROM tenant_client_keys WHERE tenant_id = \(tenantID) AND revoked_at IS NULL ORDER BY created_at",
            logger: database.logger
        )
        var keys: [(String, Date)] = []
        for key in try rows.decode((String, Date).self) { keys.append(key) }
        return keys
    }
}
