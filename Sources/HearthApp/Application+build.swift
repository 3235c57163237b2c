import Accounts
import AsyncHTTPClient
import Billing
import Coaching
import CoachingDomains
import Console
import Foundation
import HearthPlatform
import Hummingbird
import Logging
import Memory
import Personas
import PostgresNIO
import Safety
import ServiceLifecycle

/// The one place that sees every feature: builds the router, middleware order and services.
/// `hearth serve` and the tests both call it, so tests exercise exactly what production runs.
///
/// - Parameter configureRouter: lets an embedder (or a test) add routes before the server starts.
public func buildApplication(
    _ config: Config,
    logger: Logger,
    configureRouter: (@Sendable (Router<HearthRequestContext>) -> Void)? = nil
) async throws -> some ApplicationProtocol {
    HearthMetrics.bootstrap()
    let keyRing = try config.requireKeyRing()
    var clientConfiguration = try config.requireDatabaseURL().clientConfiguration()
    clientConfiguration.options.maximumConnections = config.databasePoolSize
    // No minimum: with one, PostgresNIO 1.33.2's pool traps (a precondition in createNewDemandConnectionIfPossible)
    // when Postgres refuses connections while leases queue, as in a restart under load (decision 0027). Idle
    // connections stay open for an hour, so in steady traffic the pool stays full.
    clientConfiguration.options.minimumConnections = 0
    clientConfiguration.options.connectionIdleTimeout = .seconds(3600)
    clientConfiguration.options.keepAliveBehavior = nil
    let postgres = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
    let database = Database(client: postgres, logger: logger)
    let migrations = try Migration.load(from: config.migrationsDirectory)
    let openAPIDocument = try readRequiredFile(config.openAPIFile)
    let html = try await HTMLPages.load(directory: config.templatesDirectory, required: PageAssets.templates + ConsolePages.templates)
    let assets = try StaticAssets.load(directory: config.publicDirectory, names: StaticAssets.shared + PageAssets.files + ConsolePages.files)

    let accounts = try await AccountService.make(
        database: database, keyRing: keyRing, configuration: config.accounts,
        apple: AppleIdentityVerifier(jwks: JWKSProvider(source: config.accounts.appleJWKS, httpClient: .shared))
    )
    let tenants = TenantStore(database: database, keyRing: keyRing)

    let router = Router(context: HearthRequestContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: MetricsMiddleware())
    SystemController(database: database, openAPIDocument: openAPIDocument).addRoutes(to: router)

    let directory = TenantDirectory(store: tenants, ttl: config.tenantCacheTTL)
    let api = router.group("v1").add(middleware: TenantMiddleware(directory: directory))
    // Credentials come before anything a route looks up: behind `signedIn` a request without a token is a 401.
    let signedIn = api.group().add(middleware: AccessTokenMiddleware(accounts: accounts))
    let maybeSignedIn = api.group().add(middleware: AccessTokenMiddleware(accounts: accounts, optional: true))
    AuthController(accounts: accounts, addressLimits: AddressLimits(client: postgres, logger: logger))
        .addRoutes(public: api, maybeSignedIn: maybeSignedIn, signedIn: signedIn)
    let conversations = Conversations(database: database, keyRing: keyRing)
    let contextProfiles = ContextProfiles(database: database, keyRing: keyRing, sessions: conversations)
    let memory = MemoryService(database: database, keyRing: keyRing, transcripts: conversations, options: config.memory)
    MeController(accounts: accounts, exportSections: [conversations, contextProfiles, memory]).addRoutes(to: signedIn)
    SubscriptionController(subscriptions: SubscriptionStore(database: database)).addRoutes(to: signedIn)
    AppStoreController(database: database, tenants: tenants).addRoutes(webhooks: router.group("webhooks"), signedIn: signedIn)
    let providerHTTP = try ProviderHTTPClient(connectionsPerHost: config.providerConnectionsPerHost)
    let providers = ProviderFactory(transport: providerHTTP.transport, options: config.llm)
    // The domain files must parse: a server that cannot give new tenants their domains should not start.
    let domains = CoachingDomains(database: database, defaults: try DomainFiles.load(config.domainFiles.path))
    let turn = ChatTurn(database: database, keyRing: keyRing, factory: providers, domains: domains, leases: config.answerLeases)
    let safetySettings = SafetySettings(database: database)
    SafetyController(settings: safetySettings).addRoutes(to: api)
    DomainsController(domains: domains).addRoutes(to: api)
    let personas = Personas(database: database, domains: domains)
    ThreadsController(conversations: conversations, domains: domains, personas: personas).addRoutes(to: signedIn)
    let checkingInRead = api.group().add(middleware: AccessTokenMiddleware(accounts: accounts, checkingSession: false))
    MessagesController(conversations: conversations, turn: turn).addRoutes(to: signedIn, checkingInRead: checkingInRead)
    ContextController(profiles: contextProfiles).addRoutes(to: signedIn)
    MemoryController(memory: memory).addRoutes(to: signedIn)
    PersonasController(personas: personas).addRoutes(to: signedIn)
    let links = PersonaLinks(database: database, threads: conversations, publicURL: config.publicURL, sessionGap: config.memoryWriting.idleAfter)
    LinksController(links: links).addRoutes(public: api, signedIn: signedIn)
    assets.addRoutes(to: router)
    let landing = LandingPages(database: database, links: links, domains: domains, notices: safetySettings)
    LandingController(pages: landing, html: html).addRoutes(to: router)
    try await addOperatorRoutes(to: router, config: config, database: database, tenants: tenants, accounts: accounts, landing: landing, domains: domains, directory: directory,
                                html: html, keyRing: keyRing)
    configureRouter?(router)
    router.answerOtherMethods(under: ["/v1/", "/operator/v1/", "/webhooks/"])

    var services: [any Service] = [postgres, providerHTTP, turn.checkpoints]
    services.append(DomainFileWatcher(domains: domains, tenants: tenants, directory: config.domainFiles,
                                      interval: config.domainsPollInterval, logger: logger))
    if config.jobs.workers > 0 {
        let writer = MemoryWriter(database: database, keyRing: keyRing, transcripts: conversations,
                                  models: MemoryModelSource(database: database, factory: providers), options: config.memoryWriting)
        services.append(JobRunner(store: JobStore(client: postgres, logger: logger),
                                  handlers: [AbandonedAnswers.job(database: database, leases: config.answerLeases), EndedRateWindows.job(database: database),
                                             EndedLoginWindows.job(window: config.accounts.loginThrottle.window, database: database)]
                                      + MemoryJobs.handlers(writer: writer),
                                  schedules: [AbandonedAnswers.schedule, EndedRateWindows.schedule, EndedLoginWindows.schedule]
                                      + MemoryJobs.schedules,
                                  options: config.jobs, logger: logger))
    }
    var app = Application(
        router: router,
        // A backlog of 2,048 pending connections rather than NIO's 256: phones reconnect in bursts (a network
        // back, a push to every user), and a full queue drops their connection attempts (issue 3's 2,000 streams).
        // Each connection's requests are handled on its own event loop (decision 0022).
        server: .http1OnConnectionLoops(EventLoopExecutors()),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: "Hearth", backlog: 2048),
        services: services,
        logger: logger
    )
    app.beforeServerStarts {
        // Fail fast, before taking traffic, on the two database mistakes that would otherwise surface later.
        try await RoleSafetyCheck.verify(postgres, logger: logger)
        try await SchemaCheck.verify(postgres, expecting: migrations, logger: logger)
    }
    return app
}

/// `/operator/v1`, the operator API (docs/api.md), and `/console`, its pages: sign-in is open; everything else needs an
/// operator session, and the routes under `tenants/:tenant` a tenant the operator works in.
private func addOperatorRoutes(to router: Router<HearthRequestContext>, config: Config, database: Database, tenants: TenantStore,
                               accounts: AccountService, landing: LandingPages, domains: CoachingDomains, directory: TenantDirectory, html: HTMLPages,
                               keyRing: KeyRing) async throws {
    let sessions = try await OperatorSessions.make(
        database: database, hasher: PasswordHasher(cost: config.accounts.passwordCost), policy: config.operatorSessions
    )
    let open = router.group("operator/v1")
    let signedIn = open.group().add(middleware: OperatorAuthMiddleware(sessions: sessions))
    OperatorSessionController(sessions: sessions).addRoutes(open: open, signedIn: signedIn)
    let tenant = signedIn.group("tenants/:tenant").add(middleware: OperatorTenantMiddleware(tenants: tenants))
    let moderation = PersonaModeration(database: database)
    ModerationController(moderation: moderation).addRoutes(to: tenant)
    let audit = AuditLog(logger: database.logger)
    BillingController(plans: PlanStore(database: database), appStore: AppStoreSettingsStore(database: database), audit: audit)
        .addRoutes(to: tenant)
    let costs = CostReports(database: database)
    CostsController(reports: costs).addRoutes(to: tenant)

    let pages = ConsolePages(html: html, security: ConsoleSecurity(keyRing: keyRing, sessionLifetime: config.operatorSessions.lifetime))
    let console = router.group("console").add(middleware: ConsoleErrorMiddleware(pages: pages))
    let consoleSignedIn = console.group().add(middleware: ConsoleAuthMiddleware(sessions: sessions))
    let consoleTenant = consoleSignedIn.group("tenants/:tenant").add(middleware: OperatorTenantMiddleware(tenants: tenants))
    ConsoleSessionController(sessions: sessions, pages: pages).addRoutes(open: console, signedIn: consoleSignedIn)
    ConsoleController(tenants: tenants, audit: audit, client: database.client, pages: pages).addRoutes(signedIn: consoleSignedIn, tenant: consoleTenant)
    ConsoleBillingController(database: database, audit: audit, pages: pages).addRoutes(to: consoleTenant)
    ConsoleCostsController(reports: costs, pages: pages).addRoutes(to: consoleTenant)
    ConsoleUsersController(accounts: accounts, database: database, audit: audit, pages: pages).addRoutes(to: consoleTenant)
    ConsoleModerationController(moderation: moderation, landing: landing, pages: pages).addRoutes(to: consoleTenant)
    ConsoleOverviewController(metrics: ProductMetrics(database: database, sessionIdle: config.memoryWriting.idleAfter), tenants: tenants,
                              pages: pages)
        .addRoutes(signedIn: consoleSignedIn, tenant: consoleTenant)
    ConsoleDomainsController(domains: domains, audit: audit, pages: pages).addRoutes(to: consoleTenant)
    ConsoleTenantsController(tenants: tenants, directory: directory, database: database, audit: audit, pages: pages)
        .addRoutes(signedIn: consoleSignedIn, tenant: consoleTenant)
}

extension SafetySettings: PageNotices {
    public func disclaimer(locale: String?, on connection: PostgresConnection) async throws -> Disclaimer {
        try await view(locale: locale, on: connection).disclaimer
    }
}

func readRequiredFile(_ url: URL) throws -> String {
    do {
        return try String(contentsOf: url, encoding: .utf8)
    } catch {
        throw ConfigError("cannot read \(url.path): set HEARTH_RESOURCES_DIR to the folder holding migrations/ and docs/")
    }
}
