import Logging
import PostgresNIO

/// Refuses to serve through a database role that row-level security does not bind.
///
/// Superusers, roles with BYPASSRLS and table owners all skip RLS policies; if the app connected as one of
/// them tenant isolation would rest on every query being right. Failing at startup makes that mistake loud.
public enum RoleSafetyCheck {
    public static func verify(_ client: PostgresClient, logger: Logger) async throws {
        let rows = try await client.query(
            """
            SELECT r.rolname, r.rolsuper, r.rolbypassrls,
                   EXISTS (SELECT 1 FROM pg_tables t WHERE t.schemaname = 'public' AND t.tableowner = current_user)
            FROM pg_roles r WHERE r.rolname = current_user
            """,
            logger: logger
        )
        for try await (name, superuser, bypass, owner) in rows.decode((String, Bool, Bool, Bool).self) {
            if superuser || bypass || owner {
                throw ConfigError(
                    "database role '\(name)' bypasses row-level security (superuser, BYPASSRLS or table owner); "
                        + "connect the app as a plain role such as hearth_app (see docs/operations.md)"
                )
            }
        }
    }
}
