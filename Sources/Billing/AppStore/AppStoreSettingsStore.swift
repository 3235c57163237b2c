import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `appstore_settings` (migrations/0023_app_store.sql): a tenant's App Store verification settings, edited
/// through the operator API and `hearth tenant appstore`.
public struct AppStoreSettingsStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// `nil` until the tenant configures the App Store.
    public func settings(tenantID: UUID) async throws -> AppStoreSettings? {
        try await database.withTenant(tenantID) { [self] connection in
            let rows = try await connection.query(
                "SELECT bundle_id, app_apple_id, environments, root_certificates FROM appstore_settings", logger: database.logger
            )
            for try await (bundleId, appAppleId, environments, roots) in rows.decode((String, Int64?, [String], [ByteBuffer]).self) {
                return AppStoreSettings(bundleId: bundleId, appAppleId: appAppleId, environments: environments,
                                        rootCertificates: roots.map { Data($0.readableBytesView) })
            }
            return nil
        }
    }

    /// The tenant's verifier; 409 `app_store_not_configured` when it has no settings yet.
    public func verifier(tenantID: UUID) async throws -> AppStoreVerifier {
        guard let settings = try await settings(tenantID: tenantID) else {
            throw APIError.conflict("app_store_not_configured", "This app's App Store settings (bundle id, environments) are not configured.")
        }
        return try settings.verifier()
    }

    public func save(_ settings: AppStoreSettings, tenantID: UUID, audit: Audited? = nil) async throws -> AppStoreSettings {
        let settings = try settings.validated()
        try await database.withTenant(tenantID) { [self] connection in
            try await audit?.record("appstore.settings", "bundle \(settings.bundleId), app Apple ID \(settings.appAppleId.map(String.init) ?? "none"), "
                                    + "\(settings.environments.joined(separator: " ")), "
                                    + (settings.rootCertificates.isEmpty ? "Apple Root CA - G3" : "\(settings.rootCertificates.count) own roots"),
                                    tenantID: tenantID, on: connection)
            let roots = settings.rootCertificates.map { ByteBuffer(bytes: $0) }
            try await connection.query(
                """
                INSERT INTO appstore_settings (tenant_id, bundle_id, app_apple_id, environments, root_certificates)
                VALUES (hearth_tenant_id(), \(settings.bundleId), \(settings.appAppleId), \(settings.environments), \(roots))
                ON CONFLICT (tenant_id) DO UPDATE SET bundle_id = excluded.bundle_id, app_apple_id = excluded.app_apple_id,
                    environments = excluded.environments, root_certificates = excluded.root_certificates, updated_at = now()
                """,
                logger: database.logger
            )
        }
        return settings
    }
}
