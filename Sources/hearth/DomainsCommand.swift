import ArgumentParser
import CoachingDomains
import Foundation
import HearthApp
import HearthPlatform
import Logging

struct DomainsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domains",
        abstract: "A tenant's coaching domains: import files, list, history, roll back (docs/domains.md).",
        subcommands: [Import.self, List.self, History.self, Rollback.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a domain file, or every *.yaml file of a directory, as new versions where they differ."
        )
        @Option(help: "The tenant's slug.") var tenant: String
        @Argument(help: "A .yaml file or a directory of them.") var path: String

        func run() async throws {
            let definitions = try DomainFiles.load(path)
            let written = try await withDomains(tenant) { domains, tenant in
                try await domains.save(definitions, tenantID: tenant.id, source: .import, author: "cli:\(path)")
            }
            for (key, version) in written { print("\(key)\tversion \(version)") }
            print("\(written.count) of \(definitions.count) domains changed")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The domains in effect.")
        @Option(help: "The tenant's slug.") var tenant: String

        func run() async throws {
            let catalog = try await withDomains(tenant) { domains, tenant in try await domains.currentCatalog(tenantID: tenant.id) }
            for (key, version) in catalog.versions.sorted(by: { $0.key < $1.key }) {
                print("\(key)\tversion \(version.version)\t\(version.definition.enabled ? "enabled" : "disabled")\t\(version.source.rawValue)\t\(version.definition.name)")
            }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every version of one domain, newest first.")
        @Option(help: "The tenant's slug.") var tenant: String
        @Argument var key: String

        func run() async throws {
            let versions = try await withDomains(tenant) { domains, tenant in try await domains.history(key, tenantID: tenant.id) }
            guard !versions.isEmpty else { throw ValidationError("no domain '\(key)'") }
            for version in versions {
                print("version \(version.version)\t\(version.createdAt.formatted(.iso8601))\t\(version.source.rawValue)\t\(version.author)")
            }
        }
    }

    struct Rollback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an earlier version the one in effect (as a new version).")
        @Option(help: "The tenant's slug.") var tenant: String
        @Argument var key: String
        @Option(help: "The version to go back to.") var to: Int

        func run() async throws {
            let written = try await withDomains(tenant) { domains, tenant in
                try await domains.rollback(key, to: to, tenantID: tenant.id, author: "cli")
            }
            guard let written else { throw ValidationError("\(key) has no version \(to)") }
            print("\(key)\tversion \(written) (a copy of version \(to))")
        }
    }
}

private func withDomains<T: Sendable>(_ slug: String, _ body: @Sendable (CoachingDomains, Tenant) async throws -> T) async throws -> T {
    try await AdminTasks.withDomains(try Config.loadForCommand(), logger: Logger(label: "hearth.domains"), tenantSlug: slug, body)
}
