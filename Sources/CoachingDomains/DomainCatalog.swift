/// A tenant's domains in effect, and the router built from the enabled ones.
public struct DomainCatalog: Sendable {
    /// The newest `domain_versions` id it was read at (see ``CoachingDomains/catalog(tenantID:stamp:)``).
    public let stamp: Int64
    /// Every domain's newest version, disabled ones included, by key.
    public let versions: [String: DomainStore.Version]
    /// Enabled domains, by key.
    public let enabled: [DomainDefinition]
    public let router: DomainRouter

    init(stamp: Int64, versions: [DomainStore.Version]) {
        self.stamp = stamp
        self.versions = Dictionary(versions.map { ($0.definition.key, $0) }, uniquingKeysWith: { first, _ in first })
        enabled = self.versions.values.map(\.definition).filter(\.enabled).sorted { $0.key < $1.key }
        router = DomainRouter(enabled)
    }

    /// The enabled domain `key`, if there is one.
    public func definition(_ key: String?) -> DomainDefinition? {
        key.flatMap { versions[$0]?.definition }.flatMap { $0.enabled ? $0 : nil }
    }
}
