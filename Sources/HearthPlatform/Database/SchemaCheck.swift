import Logging
import PostgresNIO

/// Refuses to serve a database whose schema is behind the code's migrations.
public enum SchemaCheck {
    public static func verify(_ client: PostgresClient, expecting migrations: [Migration], logger: Logger) async throws {
        guard let latest = migrations.last else { return }
        let rows = try await client.query(
            "SELECT coalesce(max(version), 0) FROM schema_migrations", logger: logger
        )
        var applied = 0
        for try await version in rows.decode(Int.self) { applied = version }
        guard applied >= latest.version else {
            throw ConfigError("the database schema is at migration \(applied) but this build needs \(latest.fileName): run 'hearth migrate'")
        }
    }
}
