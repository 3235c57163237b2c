import Foundation
import HearthPlatform
import Logging
import PostgresNIO
import Safety

/// A tenant's crisis resources and disclaimer per locale (`tenant_safety_locales`, migration 0014), with
/// Hearth's built-in ones where it has none. A send reads the resources in its own round trip
/// (`hearth_turn_begin`); this serves apps, operators, and the turns that store nothing (retry, preview,
/// a replayed answer).
public struct SafetySettings: Sendable {
    /// What apps show (FR17, FR19).
    public struct View: Sendable, Codable, Equatable {
        /// The locale whose resources these are ("default" when none matched).
        public let locale: String
        public let disclaimer: Disclaimer
        public let crisisResources: [CrisisResource]
    }

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The most specific resources and disclaimer for `locale`: the tenant's own first, then the built-in ones.
    public func view(tenantID: UUID, locale: String?) async throws -> View {
        try await database.withTenant(tenantID) { [self] connection in try await view(locale: locale, on: connection) }
    }

    /// The same, in a transaction of the tenant's the caller has open.
    public func view(locale: String?, on connection: PostgresConnection) async throws -> View {
        let candidates = CrisisResources.candidates(for: locale)
        let rows = try await connection.query(
            """
            SELECT locale, crisis_resources::text, disclaimer_short, disclaimer_full FROM tenant_safety_locales
            WHERE locale = ANY (\(candidates)) ORDER BY array_position(\(candidates), locale)
            """,
            logger: database.logger
        ).collect()
        // The most specific row's list decides, as in a send's own lookup (`hearth_turn_begin`): one
        // that does not read falls back to the built-in list, not to a less specific row of the tenant's.
        var resources: (locale: String, list: [CrisisResource]?)?
        var disclaimer: Disclaimer?
        for row in rows {
            let (locale, json, short, full) = try row.decode((String, String, String?, String?).self)
            if resources == nil { resources = (locale, Self.resources(json: Data(json.utf8))) }
            if disclaimer == nil, let short, let full { disclaimer = Disclaimer(short: short, full: full) }
        }
        let builtIn = CrisisResources.select(locale, from: CrisisResources.builtIn)
        if let resources, let list = resources.list {
            return View(locale: resources.locale, disclaimer: disclaimer ?? CrisisResources.disclaimer, crisisResources: list)
        }
        return View(locale: builtIn?.locale ?? CrisisResources.defaultLocale, disclaimer: disclaimer ?? CrisisResources.disclaimer,
                    crisisResources: builtIn?.resources ?? [])
    }

    /// A stored list of resources; `nil` when it is empty or unreadable, so the next list applies.
    static func resources(json: Data) -> [CrisisResource]? {
        (try? JSONDecoder().decode([CrisisResource].self, from: json)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The locales the tenant has set resources for, with them and its disclaimer there.
    public func locales(tenantID: UUID) async throws -> [(locale: String, resources: [CrisisResource], disclaimer: Disclaimer?)] {
        try await database.withTenant(tenantID) { [self] connection in
            let rows = try await connection.query(
                "SELECT locale, crisis_resources::text, disclaimer_short, disclaimer_full FROM tenant_safety_locales ORDER BY locale",
                logger: database.logger
            )
            var locales: [(String, [CrisisResource], Disclaimer?)] = []
            for try await (locale, json, short, full) in rows.decode((String, String, String?, String?).self) {
                let disclaimer = short.flatMap { short in full.map { Disclaimer(short: short, full: $0) } }
                locales.append((locale, Self.resources(json: Data(json.utf8)) ?? [], disclaimer))
            }
            return locales
        }
    }

    /// Sets the tenant's resources (and optionally disclaimer) for `locale`; an operator's change (`audited`) is
    /// in the audit log.
    public func save(tenantID: UUID, locale: String, resources: [CrisisResource], disclaimer: Disclaimer?,
                     audited: Audited? = nil) async throws {
        guard let key = locale == CrisisResources.defaultLocale ? locale : CrisisResources.normalise(locale) else {
            throw APIError.validation("locale must be a language tag such as en-GB, or default.")
        }
        guard !resources.isEmpty, resources.allSatisfy({ !$0.name.isEmpty && ($0.phone != nil || $0.text != nil || $0.url != nil) }) else {
            throw APIError.validation("give at least one resource, each with a name and a phone number, text instructions or a URL.")
        }
        let json = String(decoding: try JSONEncoder().encode(resources), as: UTF8.self)
        _ = try await database.withTenant(tenantID) { [self] connection in
            try await connection.query(
                """
                INSERT INTO tenant_safety_locales (tenant_id, locale, crisis_resources, disclaimer_short, disclaimer_full)
                VALUES (\(tenantID), \(key), \(json)::jsonb, \(disclaimer?.short), \(disclaimer?.full))
                ON CONFLICT (tenant_id, locale) DO UPDATE SET crisis_resources = excluded.crisis_resources,
                    disclaimer_short = excluded.disclaimer_short, disclaimer_full = excluded.disclaimer_full, updated_at = now()
                """,
                logger: database.logger
            )
            try await audited?.record("tenant.safety", "\(key): \(resources.map(\.name).joined(separator: ", "))", tenantID: tenantID,
                                      on: connection)
        }
    }
}
