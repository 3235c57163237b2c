import Billing
import Foundation
import HearthPlatform
import Logging

/// `hearth tenant appstore` and `hearth appstore verify`: a tenant's App Store settings, and an offline check of
/// a signed payload against them (the same verification the webhook runs).
extension AdminTasks {
    /// Changes the settings, or makes them (then the bundle id and environments are required). Options left out
    /// keep their value; root certificate files (DER or PEM) replace the roots, none keeps them.
    public static func setAppStore(_ config: Config, logger: Logger, tenantSlug: String, bundleID: String?, appAppleID: Int64?,
                                   environments: [String], rootCertificateFiles: [String]) async throws -> AppStoreSettings {
        let keyRing = try config.requireKeyRing()
        let roots = try rootCertificateFiles.map { path in
            do {
                return try AppStoreSettings.certificate(fromFile: try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ConfigError("\(path) is not a readable DER or PEM certificate")
            }
        }
        return try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            let store = AppStoreSettingsStore(database: database)
            var settings: AppStoreSettings
            if let existing = try await store.settings(tenantID: tenant.id) {
                settings = existing
                settings.bundleId = bundleID ?? existing.bundleId
                settings.appAppleId = appAppleID ?? existing.appAppleId
                settings.environments = environments.isEmpty ? existing.environments : environments
                settings.rootCertificates = roots.isEmpty ? existing.rootCertificates : roots
            } else {
                guard let bundleID, !environments.isEmpty else {
                    throw ConfigError("the first App Store settings need --bundle-id and --environment")
                }
                settings = AppStoreSettings(bundleId: bundleID, appAppleId: appAppleID, environments: environments, rootCertificates: roots)
            }
            do {
                return try await store.save(settings, tenantID: tenant.id)
            } catch let error as APIError {
                throw ConfigError(error.message)
            }
        }
    }

    /// The verified document as JSON; throws ``AppStoreVerificationError`` with the exact reason it failed.
    public static func verifyAppStoreFile(_ config: Config, logger: Logger, tenantSlug: String, file: String) async throws -> String {
        let keyRing = try config.requireKeyRing()
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigError("cannot read \(file)")
        }
        let verifier = try await Database.connect(to: try config.requireDatabaseURL(), logger: logger) { database in
            let tenant = try await tenant(tenantSlug, in: database, keyRing: keyRing)
            guard let settings = try await AppStoreSettingsStore(database: database).settings(tenantID: tenant.id) else {
                throw ConfigError("tenant '\(tenantSlug)' has no App Store settings: hearth tenant appstore \(tenantSlug) --bundle-id … --environment …")
            }
            return try settings.verifier()
        }
        let document = try await verifier.document(text)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}
