import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import NIOConcurrencyHelpers
import Testing

/// A database restart is not a crash: Postgres restarted (`pg_ctl restart -m fast`, what a failover or a minor
/// upgrade does) under 24 people sending messages. The process lives (it runs in this test's process: a trap
/// would end the run), a request during the outage gets an answer or a 503 with `Retry-After` (none hangs), and
/// everything works again once the database is back.
@Suite struct DatabaseRestartTests {
    @Test(.timeLimit(.minutes(2))) func postgresRestartedUnderTwentyFourSendersIsRiddenOut() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-restart-pg-\(UUID().uuidString.prefix(8))")
        let postgres = EmbeddedPostgres(directory: directory, port: try EmbeddedPostgres.freePort(), ephemeral: true, logger: TestLogs.quiet)
        defer { postgres.stop() }
        let endpoints = try await postgres.start(database: "hearth_restart")
        var migration = Config()
        migration.migrationDatabaseURL = endpoints.admin
        migration.resourcesDirectory = TestPaths.repositoryRoot
        _ = try await AdminTasks.migrate(migration, logger: TestLogs.quiet)
        let hearth = try await TestHearth.make(databases: .init(admin: endpoints.admin, app: endpoints.app)) { $0.databasePoolSize = 20 }
        let (_, key) = try await hearth.createTenant()
        try await hearth.liftLimits()

        try await hearth.test { client in
            var signedUp: [Coachee] = []
            for _ in 0..<24 { signedUp.append(try await Coachee.make(client, key: key)) }
            let people = signedUp
            let raw = RawHTTP(port: try #require(client.port), timeoutSeconds: 30)
            let outcomes = NIOLockedValueBox<[Int: Int]>([:])
            let refusalsWithoutRetryAfter = NIOLockedValueBox(0)
            let sending = NIOLockedValueBox(true)
            let returned = NIOLockedValueBox(ContinuousClock.now)

            @Sendable func send(_ person: Coachee) async throws -> RawHTTP.Response {
                try await raw.send("POST", person.messagesPath, headers: RawHTTP.jsonHeaders(clientKey: key, token: person.token),
                                   body: Array(#"{"content":"Still here after the restart?"}"#.utf8))
            }

            try await withThrowingTaskGroup(of: Void.self) { group in
                for person in people {
                    group.addTask {
                        while sending.withLockedValue({ $0 }) {
                            let response = try await send(person)
                            outcomes.withLockedValue { $0[response.status, default: 0] += 1 }
                            if response.status == 503 {
                                if response.header("Retry-After").flatMap(Int.init) == nil { refusalsWithoutRetryAfter.withLockedValue { $0 += 1 } }
                                try await Task.sleep(for: .milliseconds(100))
                            }
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<5 {
                        try await Task.sleep(for: .seconds(1))
                        try await postgres.restart()
                    }
                    returned.withLockedValue { $0 = ContinuousClock.now }
                    sending.withLockedValue { $0 = false }
                }
                try await group.waitForAll()
            }
            // Back after the database's return: every person is answered again (their last sends, in flight when the
            // restart returned, are finished by now). Alone this took under 5 s in every run; the bound only catches a
            // service that does not come back, since in the full parallel suite on two cores it took up to 44 s.
            let deadline = returned.withLockedValue { $0 } + .seconds(120)
            var notBack = 0
            for person in people {
                let answered = try await waitUntil(timeout: max(.zero, deadline - ContinuousClock.now), every: .milliseconds(100)) {
                    try await send(person).status == 200
                }
                if !answered { notBack += 1 }
            }

            let seen = outcomes.withLockedValue { $0 }
            // 0 is an exchange that got no answer within 30 s: a hung request.
            #expect(Set(seen.keys).isSubset(of: [200, 503]), "statuses seen: \(seen)")
            #expect((seen[200] ?? 0) > 24)
            #expect(refusalsWithoutRetryAfter.withLockedValue { $0 } == 0)
            #expect(notBack == 0, "\(notBack) people not answered again after the database's return")
        }
    }
}
