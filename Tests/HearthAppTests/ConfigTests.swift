import Foundation
import HearthApp
import HearthPlatform
import Testing

@Suite struct ConfigTests {
    let key = KeyRing.generateSpecification(version: 1)

    @Test func defaultsAreForLocalDevelopment() throws {
        let config = try Config.fromEnvironment([:])
        #expect(config.environment == .development)
        #expect(config.host == "127.0.0.1" && config.port == 8080)
        #expect(config.logFormat == .text)
        #expect(config.databaseURL == nil)
        #expect(config.accounts.loginThrottle == .standard)
    }

    @Test func productionLogsJSONAndEveryKeyIsRead() throws {
        let config = try Config.fromEnvironment([
            "HEARTH_ENV": "production",
            "HEARTH_PORT": "9000",
            "HEARTH_PUBLIC_URL": "https://coach.example.com",
            "HEARTH_DATABASE_URL": "postgres://hearth_app:pw@db:5432/hearth",
            "HEARTH_MIGRATION_DATABASE_URL": "postgres://owner:pw@db:5432/hearth",
            "HEARTH_MASTER_KEY": key,
            "HEARTH_ACCESS_TOKEN_TTL_SECONDS": "600",
            "HEARTH_LOGIN_MAX_FAILURES_PER_ACCOUNT": "7",
            "HEARTH_APPLE_JWKS_URL": "file:///etc/hearth/jwks.json",
        ])
        #expect(config.logFormat == .json)
        #expect(config.port == 9000)
        #expect(config.publicURL == "https://coach.example.com")
        #expect(config.databaseURL?.username == "hearth_app")
        #expect(config.migrationDatabaseURL?.username == "owner")
        #expect(config.accounts.accessTokenLifetime == .seconds(600))
        #expect(config.accounts.loginThrottle.maxFailuresPerAccount == 7)
        #expect(config.accounts.appleJWKS == .file("/etc/hearth/jwks.json"))
    }

    @Test func theMigrationURLDefaultsToTheDatabaseURL() throws {
        let config = try Config.fromEnvironment(["HEARTH_DATABASE_URL": "postgres://a:b@h/d"])
        #expect(config.migrationDatabaseURL == config.databaseURL)
    }

    @Test(arguments: [
        ("HEARTH_PORT", "eighty", "HEARTH_PORT"),
        ("HEARTH_PORT", "70000", "HEARTH_PORT"),
        ("HEARTH_ENV", "staging", "HEARTH_ENV"),
        ("HEARTH_DATABASE_URL", "mysql://x@y/z", "HEARTH_DATABASE_URL"),
        ("HEARTH_MASTER_KEY", "1:short", "HEARTH_MASTER_KEY"),
        ("HEARTH_APPLE_JWKS_URL", "ftp://x", "HEARTH_APPLE_JWKS_URL"),
        ("HEARTH_PUBLIC_URL", "coach.example.com", "HEARTH_PUBLIC_URL"),
        ("HEARTH_DATABSE_URL", "postgres://a@b/c", "HEARTH_DATABSE_URL"),
    ])
    func badValuesFailFastNamingTheKey(_ key: String, _ value: String, _ named: String) {
        do {
            _ = try Config.fromEnvironment([key: value])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(String(describing: error).contains(named))
        }
    }
}
