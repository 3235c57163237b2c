import Foundation
import HearthPlatform
import Logging
import PostgresNIO
import Synchronization

/// The coaching domains feature (FR43, FR44): each tenant's versioned domain definitions and the router built
/// from them. Turns ask for a tenant's catalog with the stamp their context query read, so a change made by
/// any instance (console, CLI, the file watcher) is picked up by every instance on its next turn, without a
/// restart and without an extra round trip while nothing changes.
public final class CoachingDomains: Sendable {
    let database: Database
    let store: DomainStore
    /// What a tenant with no domains of its own starts with (the files in `domains/`).
    let defaults: Mutex<[DomainDefinition]>
    let cache = Mutex<[UUID: DomainCatalog]>([:])

    public init(database: Database, defaults: [DomainDefinition]) {
        self.database = database
        self.store = DomainStore(logger: database.logger)
        self.defaults = Mutex(defaults)
    }

    /// The tenant's catalog as of `stamp` (the newest `domain_versions` id, `nil` when it has none: then it
    /// is given the defaults first).
    public func catalog(tenantID: UUID, stamp: Int64?) async throws -> DomainCatalog {
        if let stamp, let cached = cache.withLock({ $0[tenantID] }), cached.stamp == stamp {
            return cached
        }
        let catalog = try await database.withTenant(tenantID) { [self] connection in
            var (stamp, versions) = try await store.current(on: connection)
            if stamp == nil {
                for definition in defaults.withLock({ $0 }) {
                    try await store.save(definition, tenantID: tenantID, source: .file, author: "defaults", on: connection)
                }
                (stamp, versions) = try await store.current(on: connection)
            }
            return DomainCatalog(stamp: stamp ?? 0, versions: versions)
        }
        cache.withLock { $0[tenantID] = catalog }
        return catalog
    }

    /// The tenant's catalog as stored now (for operators and thread creation, which have no turn context to
    /// read the stamp with): one small query, and the cached catalog when it is still current.
    public func currentCatalog(tenantID: UUID) async throws -> DomainCatalog {
        let stamp = try await database.withTenant(tenantID) { [self] connection in try await self.stamp(on: connection) }
        return try await catalog(tenantID: tenantID, stamp: stamp)
    }

    /// The stamp ``catalog(tenantID:stamp:)`` takes, read in a transaction of the tenant's the caller has open.
    public func stamp(on connection: PostgresConnection) async throws -> Int64? {
        try await store.stamp(on: connection)
    }

    /// Writes each definition as a new version where it differs from the one in effect; returns the keys and
    /// versions written. An operator's change (`audited`) is in the audit log, in the same transaction.
    public func save(_ definitions: [DomainDefinition], tenantID: UUID, source: DomainStore.Source,
                     author: String, audited: Audited? = nil) async throws -> [(key: String, version: Int)] {
        try await database.withTenant(tenantID) { [self] connection in
            var written: [(String, Int)] = []
            for definition in definitions {
                if let version = try await store.save(definition, tenantID: tenantID, source: source, author: author, on: connection) {
                    written.append((definition.key, version))
                    try await audited?.record("domain.save", "\(definition.key) v\(version)\(definition.enabled ? "" : " (disabled)")",
                                              tenantID: tenantID, on: connection)
                }
            }
            return written
        }
    }

    /// Applies edited domain files to a tenant: a domain is updated when the file differs and the version in
    /// effect came from a file too. An operator's console or CLI change wins until they import again.
    public func applyFiles(_ definitions: [DomainDefinition], tenantID: UUID, path: String) async throws -> [(key: String, version: Int)] {
        try await database.withTenant(tenantID) { [self] connection in
            let current = Dictionary(try await store.current(on: connection).versions.map { ($0.definition.key, $0) },
                                     uniquingKeysWith: { first, _ in first })
            var written: [(String, Int)] = []
            for definition in definitions where current[definition.key].map({ $0.source == .file }) ?? true {
                if let version = try await store.save(definition, tenantID: tenantID, source: .file, author: path, on: connection) {
                    written.append((definition.key, version))
                }
            }
            return written
        }
    }

    /// New tenants start with these from now on.
    public func replaceDefaults(_ definitions: [DomainDefinition]) {
        defaults.withLock { $0 = definitions }
    }

    public func history(_ key: String, tenantID: UUID) async throws -> [DomainStore.Version] {
        try await database.withTenant(tenantID) { [self] connection in try await store.history(key, on: connection) }
    }

    /// Version `version` of `key` in effect again, as a new version; `nil` when there is no such version.
    public func rollback(_ key: String, to version: Int, tenantID: UUID, author: String, audited: Audited? = nil) async throws -> Int? {
        try await database.withTenant(tenantID) { [self] connection in
            let written = try await store.rollback(key, to: version, tenantID: tenantID, author: author, on: connection)
            if let written {
                try await audited?.record("domain.rollback", "\(key) to v\(version) as v\(written)", tenantID: tenantID, on: connection)
            }
            return written
        }
    }
}
