import Foundation
import HearthPlatform
import Hummingbird

/// `GET /v1/domains`: the app's coaching domains, for a picker or a thread's label. Routing itself is
/// invisible (FR6); this only names what exists.
public struct DomainsController<Context: HearthRequestContextProtocol>: Sendable {
    struct DomainList: ResponseEncodable {
        struct Domain: Encodable {
            let key: String
            let name: String
            let description: String
            let version: Int
        }
        let domains: [Domain]
    }

    let domains: CoachingDomains

    public init(domains: CoachingDomains) {
        self.domains = domains
    }

    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("domains", use: list)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> DomainList {
        let catalog = try await domains.currentCatalog(tenantID: context.requireTenant().id)
        return DomainList(domains: catalog.enabled.map { definition in
            .init(key: definition.key, name: definition.name, description: definition.description,
                  version: catalog.versions[definition.key]?.version ?? 1)
        })
    }
}
