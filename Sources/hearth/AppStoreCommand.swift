import ArgumentParser
import Billing
import Foundation
import HearthApp
import Logging

struct AppStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore",
        abstract: "Check App Store signed data against a tenant's settings (docs/api.md, App Store).",
        subcommands: [Verify.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signed payload offline (a notification body, a signedPayload, a signed transaction or renewal info) "
                + "and print it decoded, or the exact reason it failed."
        )
        @Option(help: "The tenant's slug.") var tenant: String
        @Argument(help: "The file holding the signed data.") var file: String

        func run() async throws {
            do {
                print(try await AdminTasks.verifyAppStoreFile(try Config.loadForCommand(), logger: Logger(label: "hearth.appstore"),
                                                              tenantSlug: tenant, file: file))
            } catch let error as AppStoreVerificationError {
                print("invalid: \(error.description)")
                throw ExitCode(2)
            }
        }
    }
}

extension TenantCommand {
    struct AppStoreSettingsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "appstore",
            abstract: "Set how the tenant's App Store data is verified: bundle id, app Apple ID, environments and trusted roots."
        )
        @Argument var slug: String
        @Option(help: "The app's bundle id.") var bundleId: String?
        @Option(help: "The app's Apple ID in App Store Connect (required for Production).") var appAppleId: Int64?
        @Option(help: "Production or Sandbox (repeatable; replaces the list).") var environment: [String] = []
        @Option(help: "A root certificate file, DER or PEM (repeatable; replaces the roots). None set: Apple Root CA - G3.")
        var rootCertificate: [String] = []

        func run() async throws {
            let settings = try await AdminTasks.setAppStore(try Config.loadForCommand(), logger: Logger(label: "hearth.tenant"), tenantSlug: slug,
                                                            bundleID: bundleId, appAppleID: appAppleId, environments: environment,
                                                            rootCertificateFiles: rootCertificate)
            print("\(slug) App Store: bundle \(settings.bundleId), app Apple ID \(settings.appAppleId.map(String.init) ?? "none"), "
                + "environments \(settings.environments.joined(separator: " ")), roots: "
                + (settings.rootCertificates.isEmpty ? "Apple Root CA - G3" : "\(settings.rootCertificates.count) configured"))
        }
    }
}
