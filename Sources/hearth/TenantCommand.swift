import ArgumentParser
import Coaching
import Foundation
import HearthApp
import HearthPlatform
import Logging
import Personas
import Safety

struct TenantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenant",
        abstract: "Create, list and configure tenants and their client keys.",
        subcommands: [Create.self, List.self, Set.self, AddKey.self, RevokeKey.self, LLM.self, SafetyResources.self, PersonaReview.self, AppLinksCommand.self,
                      PlanCommand.self, LimitsCommand.self, AppStoreSettingsCommand.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a tenant and print its first client key.")
        @Option(help: "URL-safe identifier, e.g. acme-coach.") var slug: String
        @Option(help: "Display name.") var name: String
        @Option(help: "Bundle or Services id accepted for Sign in with Apple (repeatable).") var appleAudience: [String] = []
        @Option(help: "Minimum password length for email accounts (8–128).") var passwordMinLength: Int?

        func run() async throws {
            let (tenant, key) = try await withTenantStore { store in
                try await store.create(
                    slug: slug, name: name,
                    settings: .init(passwordMinLength: passwordMinLength, appleAudiences: appleAudience.isEmpty ? nil : appleAudience)
                )
            }
            print("tenant \(tenant.slug) created (id \(tenant.id.uuidString.lowercased()))")
            print("client key: \(key)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tenants.")

        func run() async throws {
            let tenants = try await withTenantStore { try await $0.list() }
            for tenant in tenants {
                print("\(tenant.slug)\t\(tenant.id.uuidString.lowercased())\t\(tenant.name)")
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a tenant's settings.")
        @Argument var slug: String
        @Option var name: String?
        @Option(help: "Replaces the list of Sign in with Apple audiences (repeatable).") var appleAudience: [String] = []
        @Option var passwordMinLength: Int?
        @Option(help: "Let users see the prompt assembled for their own turns: on or off.") var promptDebug: Switch?

        enum Switch: String, ExpressibleByArgument { case on, off }

        func run() async throws {
            let tenant = try await withTenantStore { store in
                try await store.update(
                    slug: slug,
                    settings: .init(name: name, passwordMinLength: passwordMinLength, appleAudiences: appleAudience.isEmpty ? nil : appleAudience,
                                    promptDebug: promptDebug.map { $0 == .on })
                )
            }
            print("\(tenant.slug): password minimum \(tenant.passwordMinLength), apple audiences \(tenant.appleAudiences), prompt debug \(tenant.promptDebug ? "on" : "off")")
        }
    }

    struct AddKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-key", abstract: "Add a client key (rotation: ship it, then revoke the old one)."
        )
        @Argument var slug: String

        func run() async throws {
            print(try await withTenantStore { try await $0.addClientKey(slug: slug) })
        }
    }

    struct RevokeKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke-key", abstract: "Revoke a client key.")
        @Argument var key: String

        func run() async throws {
            guard try await withTenantStore({ try await $0.revokeClientKey(key) }) else {
                throw ValidationError("no active client key like that")
            }
            print("revoked")
        }
    }
}

extension TenantCommand {
    struct LLM: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "llm",
            abstract: "Set a tenant's primary or fallback LLM provider (no provider: the built-in offline model).",
            discussion: "Keys are never stored: give a reference, env:NAME or file:/path, resolved when a turn runs."
        )
        @Argument var slug: String
        @Option(help: "primary or fallback.") var position = "primary"
        @Option(help: "openai (any OpenAI-compatible API), anthropic or offline.") var kind: String?
        @Option var model: String?
        @Option(help: "e.g. https://api.openai.com/v1, https://api.deepseek.com/v1, http://127.0.0.1:11434/v1, https://api.anthropic.com") var baseURL: String?
        @Option(help: "env:NAME or file:/path") var apiKey: String?
        @Flag(help: "Remove the provider at this position.") var remove = false

        func run() async throws {
            guard let position = ProviderSetting.Position(name: position) else { throw ValidationError("position must be primary or fallback") }
            let setting: ProviderSetting?
            if remove {
                setting = nil
            } else {
                guard let kind else { throw ValidationError("give --kind (openai, anthropic or offline) and --model, or --remove") }
                do {
                    setting = try ProviderSetting.described(position: position, kind: kind, model: model, baseURL: baseURL, apiKeyReference: apiKey)
                } catch {
                    throw ValidationError(error.message)
                }
            }
            let config = try Config.loadForCommand()
            try await AdminTasks.configureProvider(config, logger: Logger(label: "hearth.tenant"), tenantSlug: slug, position: position, setting: setting)
            print(setting.map { "\(slug) \(self.position): \($0.kind) \($0.model)" } ?? "removed the \(self.position) provider of \(slug)")
        }
    }
}

func withTenantStore<T: Sendable>(_ body: @Sendable (TenantStore) async throws -> T) async throws -> T {
    let config = try Config.loadForCommand()
    return try await AdminTasks.withTenants(config, logger: Logger(label: "hearth.tenant"), body)
}

extension TenantCommand {
    struct SafetyResources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "safety",
            abstract: "Set a tenant's crisis resources (and optionally disclaimer) for a locale, served by GET /v1/safety and the crisis event.",
            discussion: #"The file is a JSON array: [{"name": "...", "description": "...", "phone": "...", "text": "...", "url": "..."}]."#
        )
        @Argument var slug: String
        @Option(help: "A language tag (en-GB, en) or default.") var locale: String
        @Option(help: "The JSON file of resources.") var resources: String
        @Option(help: "The short disclaimer (with --disclaimer-full).") var disclaimerShort: String?
        @Option(help: "The full disclaimer (with --disclaimer-short).") var disclaimerFull: String?

        func run() async throws {
            let list = try JSONDecoder().decode([CrisisResource].self, from: Data(contentsOf: URL(fileURLWithPath: resources)))
            let disclaimer: Disclaimer?
            switch (disclaimerShort, disclaimerFull) {
            case let (short?, full?): disclaimer = Disclaimer(short: short, full: full)
            case (nil, nil): disclaimer = nil
            default: throw ValidationError("give both --disclaimer-short and --disclaimer-full, or neither")
            }
            try await AdminTasks.setSafety(try Config.loadForCommand(), logger: Logger(label: "hearth.tenant"), tenantSlug: slug,
                                           locale: locale, resources: list, disclaimer: disclaimer)
            print("\(slug) \(locale): \(list.count) crisis resources")
        }
    }
}

extension TenantCommand {
    struct PersonaReview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "personas",
            abstract: "Set how a tenant's persona submissions are reviewed: flagged (the screening approves what it passes) or all (a moderator reviews every one)."
        )
        @Argument var slug: String
        @Option(help: "flagged or all.") var review: String

        func run() async throws {
            guard let policy = Personas.ReviewPolicy(rawValue: review) else { throw ValidationError("--review is flagged or all") }
            try await AdminTasks.setPersonaReview(try Config.loadForCommand(), logger: Logger(label: "hearth.tenant"), tenantSlug: slug, policy: policy)
            print("\(slug): persona review \(policy.rawValue)")
        }
    }

    struct AppLinksCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app-links",
            abstract: "Set how a tenant's share links reach its app: the host its links and apple-app-site-association live on, "
                + "the app's name, URL scheme, App Store id and app ids. Options left out keep their values; an empty value clears one."
        )
        @Argument var slug: String
        @Option(help: "Host the links live on, e.g. links.example.com (point its DNS and TLS at Hearth).") var host: String?
        @Option(help: "How the page names the app.") var appName: String?
        @Option(help: "The app's custom URL scheme, e.g. serenity (the page's open-in-app button).") var scheme: String?
        @Option(help: "The number in the app's App Store URL (fallback button and Smart App Banner).") var appStoreId: String?
        @Option(help: "TEAMID.bundle.id of an app that opens the links (repeatable; replaces the list).") var appId: [String] = []

        func run() async throws {
            let links = try await AdminTasks.setAppLinks(
                try Config.loadForCommand(), logger: Logger(label: "hearth.tenant"), tenantSlug: slug, host: host, appName: appName,
                urlScheme: scheme, appStoreID: appStoreId, appIDs: appId.isEmpty ? nil : appId
            )
            print("\(slug): links on \(links.host ?? "HEARTH_PUBLIC_URL"), app \(links.appName ?? "(tenant name)"), "
                + "scheme \(links.urlScheme ?? "none"), App Store id \(links.appStoreID ?? "none"), app ids \(links.appIDs.isEmpty ? "none" : links.appIDs.joined(separator: " "))")
        }
    }

    struct PlanCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Change a plan's per-user limits and monthly budget, or create a plan (trial is everyone's in their free trial)."
        )
        @Argument var slug: String
        @Argument(help: "The plan's code, e.g. trial or premium.") var code: String
        @Option var name: String?
        @Option(help: "An App Store product id that buys the plan (repeatable; replaces the list).") var productId: [String] = []
        @Option var requestsPerMinute: Int?
        @Option var tokensPerDay: Int64?
        @Option var concurrentStreams: Int?
        @Option(help: "Monthly cost budget per user, in micro-dollars (1000000 = $1).") var monthlyBudgetMicros: Int64?
        @Option(help: "Share of the budget after which the tenant's economy model answers.") var economyAtPercent: Int?

        func run() async throws {
            var changes = AdminTasks.PlanChanges()
            changes.name = name
            changes.productIDs = productId.isEmpty ? nil : productId
            changes.requestsPerMinute = requestsPerMinute
            changes.tokensPerDay = tokensPerDay
            changes.concurrentStreams = concurrentStreams
            changes.monthlyBudgetMicros = monthlyBudgetMicros
            changes.economyAtPercent = economyAtPercent
            let plan = try await AdminTasks.setPlan(try Config.loadForCommand(), logger: Logger(label: "hearth.tenant"), tenantSlug: slug,
                                                    code: code, changes: changes)
            print("\(slug) plan \(plan.code) (\(plan.name)): \(plan.requestsPerMinute) requests/min, \(plan.tokensPerDay) tokens/day, "
                + "\(plan.concurrentStreams) concurrent answers, budget \(plan.monthlyBudgetMicros) micro-dollars/month "
                + "(economy model from \(plan.economyAtPercent)%)")
        }
    }

    struct LimitsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "limits", abstract: "Change the tenant's own rate limits: requests per second, sign-ups and sign-ins per client address."
        )
        @Argument var slug: String
        @Option var requestsPerSecond: Int?
        @Option var signupsPerHour: Int?
        @Option var loginsPerMinute: Int?

        func run() async throws {
            let limits = try await AdminTasks.setLimits(try Config.loadForCommand(), logger: Logger(label: "hearth.tenant"), tenantSlug: slug,
                                                        requestsPerSecond: requestsPerSecond, signupsPerHour: signupsPerHour,
                                                        loginsPerMinute: loginsPerMinute)
            print("\(slug): \(limits.requestsPerSecond) requests/s, \(limits.signupsPerHourPerAddress) sign-ups/hour and "
                + "\(limits.loginsPerMinutePerAddress) sign-ins/min per address")
        }
    }
}
