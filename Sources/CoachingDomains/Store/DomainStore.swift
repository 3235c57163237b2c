import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// The `domain_versions` table (migrations/0013_domains.sql). Every call runs on the caller's connection,
/// inside its tenant-scoped transaction.
public struct DomainStore: Sendable {
    public enum Source: String, Sendable, Codable {
        case file, `import`, console, rollback
    }

    /// A version of one domain.
    public struct Version: Sendable, Equatable {
        public let definition: DomainDefinition
        public let version: Int
        public let source: Source
        public let author: String
        public let createdAt: Date
    }

    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// The newest version of every domain (disabled ones included) and the tenant's stamp, `nil` when it has none.
    func current(on connection: PostgresConnection) async throws -> (stamp: Int64?, versions: [Version]) {
        let rows = try await connection.query(
            """
            SELECT DISTINCT ON (key) key, version, definition::text, source, author, created_at,
                   (SELECT max(id) FROM domain_versions) AS stamp
            FROM domain_versions ORDER BY key, version DESC
            """,
            logger: logger
        )
        var stamp: Int64?
        var versions: [Version] = []
        for try await (_, version, json, source, author, created, newest) in rows.decode((String, Int, String, String, String, Date, Int64).self) {
            stamp = newest
            versions.append(try Self.version(json: json, version: version, source: source, author: author, createdAt: created))
        }
        return (stamp, versions)
    }

    /// The tenant's stamp alone (the newest version id), `nil` when it has no domains.
    func stamp(on connection: PostgresConnection) async throws -> Int64? {
        let rows = try await connection.query("SELECT max(id) FROM domain_versions", logger: logger)
        return try await rows.collect().first?.decode(Int64?.self)
    }

    /// Every version of `key`, newest first.
    public func history(_ key: String, on connection: PostgresConnection) async throws -> [Version] {
        let rows = try await connection.query(
            "SELECT version, definition::text, source, author, created_at FROM domain_versions WHERE key = \(key) ORDER BY version DESC",
            logger: logger
        )
        var versions: [Version] = []
        for try await (version, json, source, author, created) in rows.decode((Int, String, String, String, Date).self) {
            versions.append(try Self.version(json: json, version: version, source: source, author: author, createdAt: created))
        }
        return versions
    }

    /// Writes `definition` as the newest version of its key; `nil` when it is the same as the newest already,
    /// or when a concurrent writer took the version number first (two instances seeding a new tenant).
    @discardableResult
    public func save(_ definition: DomainDefinition, tenantID: UUID, source: Source, author: String,
                     on connection: PostgresConnection) async throws -> Int? {
        let json = String(decoding: try Self.encoder.encode(definition), as: UTF8.self)
        let rows = try await connection.query(
            """
            WITH newest AS (
                SELECT version, definition FROM domain_versions WHERE key = \(definition.key) ORDER BY version DESC LIMIT 1
            )
            INSERT INTO domain_versions (tenant_id, key, version, definition, source, author)
            SELECT \(tenantID), \(definition.key), coalesce((SELECT version FROM newest), 0) + 1, \(json)::jsonb, \(source.rawValue), \(author)
            WHERE NOT EXISTS (SELECT 1 FROM newest WHERE newest.definition = \(json)::jsonb)
            ON CONFLICT (tenant_id, key, version) DO NOTHING
            RETURNING version
            """,
            logger: logger
        )
        return try await rows.collect().first?.decode(Int.self)
    }

    /// Makes version `number` of `key` the newest again (a new version: history only grows); `nil` when there
    /// is no such version.
    public func rollback(_ key: String, to number: Int, tenantID: UUID, author: String, on connection: PostgresConnection) async throws -> Int? {
        let rows = try await connection.query(
            """
            INSERT INTO domain_versions (tenant_id, key, version, definition, source, author)
            SELECT \(tenantID), key, (SELECT max(version) FROM domain_versions WHERE key = \(key)) + 1, definition, 'rollback', \(author)
            FROM domain_versions WHERE key = \(key) AND version = \(number)
            RETURNING version
            """,
            logger: logger
        )
        return try await rows.collect().first?.decode(Int.self)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static func version(json: String, version: Int, source: String, author: String, createdAt: Date) throws -> Version {
        Version(definition: try JSONDecoder().decode(DomainDefinition.self, from: Data(json.utf8)), version: version,
                source: Source(rawValue: source) ?? .import, author: author, createdAt: createdAt)
    }
}
