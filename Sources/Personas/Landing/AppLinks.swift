import Foundation
import HearthPlatform
import PostgresNIO

/// How a tenant's app is reached from its share links: where the links live, how the page opens the app, where
/// people without it get it. Set by operators (`hearth tenant app-links`); read by the public pages.
public struct AppLinks: Sendable, Equatable {
    /// The host share links are built on and the page and `apple-app-site-association` are served from
    /// (e.g. `links.serenity.app`); `nil`: links use `HEARTH_PUBLIC_URL` and the app gets no universal links.
    public var host: String?
    /// How the page names the app ("Open in Serenity").
    public var appName: String?
    /// The app's custom URL scheme: the page's open-in-app button is `{scheme}://p/{slug}`.
    public var urlScheme: String?
    /// The App Store fallback and the Smart App Banner.
    public var appStoreID: String?
    /// `TEAMID.bundle.id` of each app that opens the links (the association file's `appIDs`).
    public var appIDs: [String]

    public init(host: String? = nil, appName: String? = nil, urlScheme: String? = nil, appStoreID: String? = nil, appIDs: [String] = []) {
        self.host = host
        self.appName = appName
        self.urlScheme = urlScheme
        self.appStoreID = appStoreID
        self.appIDs = appIDs
    }

    /// The tenant's settings (all unset when it has none).
    public static func read(tenantID: UUID, database: Database) async throws -> AppLinks {
        try await database.withPlatformTransaction { connection in
            try await AppLinksStore(database: database).app(tenantID: tenantID, on: connection).links
        }
    }

    /// Replaces the tenant's settings, checked first; returns them as stored.
    @discardableResult
    public func save(tenantID: UUID, database: Database) async throws -> AppLinks {
        let links = try validated()
        try await AppLinksStore(database: database).save(links, tenantID: tenantID)
        return links
    }

    /// The App Store page of the app, when its id is set.
    var appStoreURL: String? { appStoreID.map { "https://apps.apple.com/app/id\($0)" } }

    /// Checks every value, so a typo fails at the command line, not as a broken page or a constraint error.
    public func validated() throws -> AppLinks {
        var links = self
        links.host = host?.lowercased()
        if let host = links.host, host.wholeMatch(of: /[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+(:[0-9]{1,5})?/) == nil {
            throw ConfigError("'\(host)' is not a host name such as links.example.com")
        }
        if let name = appName, !(1...60).contains(name.count) { throw ConfigError("the app name needs 1 to 60 characters") }
        if let scheme = urlScheme, scheme.wholeMatch(of: /[a-z][a-z0-9+.\-]{0,31}/) == nil || ["http", "https", "javascript", "data", "file"].contains(scheme) {
            throw ConfigError("'\(scheme)' is not an app URL scheme (lowercase letters first, no http/https/javascript)")
        }
        if let id = appStoreID, id.wholeMatch(of: /[0-9]{1,12}/) == nil { throw ConfigError("the App Store id is the number in the app's App Store URL") }
        if appIDs.count > 10 { throw ConfigError("at most 10 app ids") }
        for id in appIDs where id.wholeMatch(of: /[A-Z0-9]{10}\.[A-Za-z0-9.\-]+/) == nil {
            throw ConfigError("'\(id)' is not an app id: TEAMID.bundle.id, the team id being 10 capitals and digits")
        }
        return links
    }
}

/// Owns `tenant_app_links` (migration 0019): a platform table, read before the tenant is known.
struct AppLinksStore: Sendable {
    /// A tenant's app as its public pages name it.
    struct App: Sendable {
        let tenantID: UUID
        let tenantName: String
        let links: AppLinks

        var displayName: String { links.appName ?? tenantName }
    }

    let database: Database

    func app(tenantID: UUID, on connection: PostgresConnection) async throws -> App {
        let rows = try await connection.query(
            """
            SELECT t.name, l.link_host, l.app_name, l.url_scheme, l.app_store_id, coalesce(l.app_ids, '{}')
            FROM tenants t LEFT JOIN tenant_app_links l ON l.tenant_id = t.id WHERE t.id = \(tenantID)
            """,
            logger: database.logger
        )
        for try await (name, host, appName, scheme, storeID, appIDs) in rows.decode((String, String?, String?, String?, String?, [String]).self) {
            return App(tenantID: tenantID, tenantName: name,
                       links: AppLinks(host: host, appName: appName, urlScheme: scheme, appStoreID: storeID, appIDs: appIDs))
        }
        return App(tenantID: tenantID, tenantName: "", links: AppLinks())
    }

    func links(tenantID: UUID, on connection: PostgresConnection) async throws -> AppLinks {
        try decode(await connection.query(
            "SELECT \(unescaped: Self.columns) FROM tenant_app_links WHERE tenant_id = \(tenantID)", logger: database.logger
        ).collect()).first?.links ?? AppLinks()
    }

    /// The tenant whose links live on `host`, with its settings.
    func links(host: String) async throws -> (tenantID: UUID, links: AppLinks)? {
        try decode(await database.client.liveRows(
            "SELECT \(unescaped: Self.columns) FROM tenant_app_links WHERE link_host = \(host.lowercased())", logger: database.logger
        )).first
    }

    func save(_ links: AppLinks, tenantID: UUID) async throws {
        do {
            try await database.client.liveRows(
                """
                INSERT INTO tenant_app_links (tenant_id, link_host, app_name, url_scheme, app_store_id, app_ids)
                VALUES (\(tenantID), \(links.host), \(links.appName), \(links.urlScheme), \(links.appStoreID), \(links.appIDs))
                ON CONFLICT (tenant_id) DO UPDATE SET link_host = excluded.link_host, app_name = excluded.app_name,
                    url_scheme = excluded.url_scheme, app_store_id = excluded.app_store_id, app_ids = excluded.app_ids, updated_at = now()
                """,
                logger: database.logger
            )
        } catch let error as PSQLError where error.isUniqueViolation {
            throw ConfigError("another tenant's links already live on \(links.host ?? "that host")")
        }
    }

    static let columns = "tenant_id, link_host, app_name, url_scheme, app_store_id, app_ids"

    private func decode(_ rows: [PostgresRow]) throws -> [(tenantID: UUID, links: AppLinks)] {
        var result: [(tenantID: UUID, links: AppLinks)] = []
        for (tenantID, host, name, scheme, storeID, appIDs) in try rows.decode((UUID, String?, String?, String?, String?, [String]).self) {
            result.append((tenantID, AppLinks(host: host, appName: name, urlScheme: scheme, appStoreID: storeID, appIDs: appIDs)))
        }
        return result
    }
}
