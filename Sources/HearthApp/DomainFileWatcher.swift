import CoachingDomains
import Foundation
import HearthPlatform
import Logging
import ServiceLifecycle

/// Picks up edits to the domain files without a deploy or restart (FR44): every poll it compares the files'
/// names, sizes and modification times, and when they changed it reads them all, makes them the defaults for
/// new tenants and applies them to every tenant whose domain in effect came from a file (an operator's own
/// change is never overwritten). A file that does not parse is logged and nothing is applied until it is fixed.
struct DomainFileWatcher: Service {
    let domains: CoachingDomains
    let tenants: TenantStore
    let directory: URL
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var seen: String?
            while !Task.isCancelled {
                let fingerprint = DomainFiles.fingerprint(directory.path)
                if fingerprint != seen {
                    // Applied: not asked again until the files change. Failed: retried at the next poll.
                    if await apply() { seen = fingerprint }
                }
                guard interval > .zero else { return }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Reads the files and applies them to every tenant; false when that failed.
    func apply() async -> Bool {
        let definitions: [DomainDefinition]
        do {
            definitions = try DomainFiles.load(directory.path)
        } catch {
            logger.error("domain files not applied", metadata: ["error": .error(error)])
            return false
        }
        domains.replaceDefaults(definitions)
        do {
            var written = 0
            for tenant in try await tenants.list() {
                written += try await domains.applyFiles(definitions, tenantID: tenant.id, path: directory.path).count
            }
            if written > 0 {
                logger.info("domain files applied", metadata: ["versions_written": .stringConvertible(written)])
            }
            return true
        } catch {
            logger.error("applying domain files failed", metadata: ["error": .error(error)])
            return false
        }
    }
}
