import Foundation
import HearthPlatform
import HearthTestSupport
import PostgresNIO
import Synchronization
import Testing

/// Postgres closing connections under load (a restart, a failover, a terminated backend): every transaction and
/// statement returns, with its answer or an error, and none waits for good (``LiveConnection``,
/// ``PostgresClient/liveRows(_:logger:)``).
@Suite struct LiveConnectionTests {
    @Test func everyTransactionAndStatementReturnsWhileItsConnectionsAreTerminated() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let workers = 24, each = 120
        let counts = Counts()
        try await hearth.withAppDatabase { database in
            try await hearth.withAdminDatabase { admin in
                // The work runs apart from the test, so that a transaction stuck for good fails the test instead of
                // hanging it.
                let work = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for worker in 0..<workers {
                            group.addTask {
                                for _ in 0..<each {
                                    // Half the workers run transactions, half single statements.
                                    let one = worker.isMultiple(of: 2)
                                        ? try? await database.withTenant(tenant.id) { connection in
                                            try await connection.query("SELECT 1", logger: database.logger).collect().count
                                        }
                                        : try? await database.client.liveRows("SELECT 1", logger: database.logger).count
                                    if one == 1 { counts.answered.add(1, ordering: .relaxed) }
                                    counts.returned.add(1, ordering: .relaxed)
                                }
                            }
                        }
                    }
                }
                // Every backend of this test's database but the killer's own, again and again while the work runs.
                var rounds = 0
                var terminatedWhileWorking = 0
                while counts.returned.load(ordering: .relaxed) < workers * each, rounds < 200 {
                    try await Task.sleep(for: .milliseconds(50))
                    let terminated = try await admin.client.query(
                        """
                        SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::bigint FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                        """,
                        logger: admin.logger
                    ).collect().first?.decode(Int64.self) ?? 0
                    if counts.returned.load(ordering: .relaxed) < workers * each { terminatedWhileWorking += Int(terminated) }
                    rounds += 1
                }
                // The claim holds only if connections were in fact taken from under the work.
                #expect(terminatedWhileWorking > 0, "no backend was terminated while the work ran")
                let allReturned = try await waitUntil { counts.returned.load(ordering: .relaxed) == workers * each }
                #expect(allReturned, "\(workers * each - counts.returned.load(ordering: .relaxed)) transactions or statements never returned")
                if allReturned { await work.value }
            }
        }
        // The pool opened new connections as the old ones went: most transactions were answered.
        #expect(counts.answered.load(ordering: .relaxed) > 0)
    }

    private final class Counts: Sendable {
        let returned = Atomic<Int>(0)
        let answered = Atomic<Int>(0)
    }
}
