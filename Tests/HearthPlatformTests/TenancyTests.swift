import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import Logging
import PostgresNIO
import Testing

/// Row-level security: the database itself keeps tenants apart, whatever a query forgets.
@Suite struct TenancyTests {
    @Test func anUnscopedQuerySeesNoTenantRows() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        try await hearth.test { client in
            for _ in 0..<3 { _ = try await client.call(.post, "/v1/auth/anonymous", clientKey: key) }
        }
        #expect(try await hearth.adminCount("users WHERE tenant_id = '\(tenant.id)'") == 3)
        try await hearth.withAppDatabase { database in
            // No tenant scope: no rows, from any tenant-owned table.
            for table in ["users", "user_keys", "auth_sessions", "refresh_tokens"] {
                let rows = try await database.client.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(table)"), logger: database.logger).collect()
                #expect(try rows.first?.decode(Int.self) == 0, "\(table) leaked rows without a tenant scope")
            }
            // Scoped: exactly that tenant's rows, even with no WHERE clause.
            let scoped = try await database.withTenant(tenant.id) { connection in
                try await connection.query("SELECT count(*)::int FROM users", logger: database.logger).collect().first?.decode(Int.self)
            }
            #expect(scoped == 3)
        }
    }

    @Test func aScopeShowsOnlyItsOwnTenantAndCannotWriteIntoAnother() async throws {
        let hearth = try await TestHearth.make()
        let (a, keyA) = try await hearth.createTenant()
        let (b, keyB) = try await hearth.createTenant()
        try await hearth.test { client in
            _ = try await client.call(.post, "/v1/auth/anonymous", clientKey: keyA)
            _ = try await client.call(.post, "/v1/auth/anonymous", clientKey: keyB)
            _ = try await client.call(.post, "/v1/auth/anonymous", clientKey: keyB)
        }
        try await hearth.withAppDatabase { database in
            let seenByA = try await database.withTenant(a.id) { connection in
                try await connection.query("SELECT tenant_id FROM users", logger: database.logger).collect().map { try $0.decode(UUID.self) }
            }
            #expect(seenByA == [a.id])
            await #expect(throws: PSQLError.self) {
                try await database.withTenant(a.id) { connection in
                    try await connection.query("INSERT INTO users (id, tenant_id) VALUES (\(UUID()), \(b.id))", logger: database.logger)
                }
            }
        }
    }

    @Test func theAppRoleCannotBypassRowLevelSecurityButTheOwnerCan() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAppDatabase { database in
            try await RoleSafetyCheck.verify(database.client, logger: database.logger)
        }
        await #expect(throws: ConfigError.self) {
            try await hearth.withAdminDatabase { database in
                try await RoleSafetyCheck.verify(database.client, logger: database.logger)
            }
        }
    }

    @Test func theServerRefusesToStartAsARoleThatBypassesSecurity() async throws {
        var hearth = try await TestHearth.make()
        hearth.config.databaseURL = hearth.databases.admin
        await #expect(throws: ConfigError.self) {
            try await hearth.runUntilFailure()
        }
    }

    @Test func theServerRefusesAnOutdatedSchema() async throws {
        let hearth = try await TestHearth.make()
        _ = try await hearth.withAdminDatabase { database in
            try await database.client.query("DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)", logger: database.logger)
        }
        await #expect(throws: ConfigError.self) {
            try await hearth.runUntilFailure()
        }
    }

    @Test func everyTenantOwnedTableHasRowLevelSecurityAndLeadsWithTenantID() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.withAdminDatabase { database in
            let rows = try await database.client.query(
                """
                SELECT c.relname, c.relrowsecurity
                FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
                WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace AND a.attname = 'tenant_id'
                """,
                logger: database.logger
            )
            var tables: [String: Bool] = [:]
            for try await (name, secured) in rows.decode((String, Bool).self) { tables[name] = secured }
            // Platform tables that carry a tenant_id but are read before a tenant is known, by design (jobs are
            // claimed across tenants; each handler then works inside its job's tenant; the audit log also holds
            // platform-wide changes, which have no tenant).
            let platform: Set<String> = ["tenant_client_keys", "tenant_app_links", "operators", "jobs", "audit_log"]
            #expect(tables.count > 5)
            for (table, secured) in tables where !platform.contains(table) {
                #expect(secured, "\(table) has tenant_id but no row-level security")
            }
            // Secondary indexes on tenant-owned tables lead with tenant_id.
            let indexes = try await database.client.query(
                """
                SELECT t.relname, i.relname, a.attname
                FROM pg_index x
                JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
                WHERE t.relrowsecurity AND NOT x.indisprimary AND t.relnamespace = 'public'::regnamespace
                """,
                logger: database.logger
            )
            // Keys unique across tenants by design: a share link's slug is read before its tenant is known.
            let global: Set<String> = ["persona_links_slug_key"]
            for try await (table, index, firstColumn) in indexes.decode((String, String, String).self) where !global.contains(index) {
                #expect(firstColumn == "tenant_id", "\(index) on \(table) does not lead with tenant_id")
            }
        }
    }
}
