import AsyncHTTPClient
import Foundation
import HearthApp
import HearthPlatform
import HearthTestSupport
import MockLLM
import Testing

/// A crash loses nothing (issue 39, migration 0042): a real `hearth serve` process is killed (SIGKILL) mid-answer
/// and started again on the same database, beside an in-process instance that shares it.
@Suite struct CrashRecoveryTests {
    /// A short lease, so that the test waits seconds for what takes up to 20 s with the default; long enough that a
    /// child process starved of CPU in a loaded run still renews its answer in time (it renews four times a lease).
    static let leaseSeconds = 6

    @Test func anInstanceKilledMidAnswerLosesNoCheckpointedTextAndFreesTheAnswerAndItsSlot() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CommandLineTests.binary), "build the hearth product first (scripts/test does)")
        let masterKey = KeyRing.generateSpecification(version: 1)
        let hearth = try await TestHearth.make {
            $0.masterKeys = try! KeyRing(parsing: masterKey)
            $0.answerLeases.lifetime = .seconds(Self.leaseSeconds)
        }
        try await withMockLLM(.init(tokensPerSecond: 50, responseTokens: 40)) { mock, mockPort in
            let (tenant, key) = try await hearth.createTenant()
            try await hearth.useMock(tenant, port: mockPort)
            try await hearth.admin("UPDATE billing_plans SET concurrent_streams = 1")
            try await hearth.test { client in
                let person = try await Coachee.make(client, key: key)
                let elsewhere = try await person.newThread(client)
                var server = try await HearthProcess.start(hearth, masterKey: masterKey)
                defer { server.kill() }

                // An answer streams from the process, then its provider pauses after 12 tokens.
                mock.hold(afterTokens: 12)
                // Released whatever happens: a held answer would keep the mock's server from shutting down.
                defer { mock.release() }
                let stream = try await SSEClient(port: server.port, clientKey: key, token: person.token)
                    .open(.POST, person.messagesPath, json: ["content": "Tell me about habits."])
                try #require(stream.status == 200)
                var streamed = ""
                var answerID: String?
                // Until the twelfth token (token11): a loaded run may bring several in one delta.
                while !streamed.contains("token11"), let event = try await stream.next() {
                    if event.event == "start" { answerID = event["assistantMessageId"] as? String }
                    if let text = event.text { streamed += text }
                }
                let answer = try #require(answerID)
                #expect(streamed.contains("token11") && !streamed.contains("token12"))
                let answerPath = person.messagesPath + "/\(answer)"

                // Its text is stored while it streams: the checkpoint catches up with what was sent.
                #expect(try await waitUntil(timeout: .seconds(60)) {
                    let stored = try? await client.call(.get, answerPath, clientKey: key, token: person.token)
                    return stored?["status"] as? String == "streaming" && stored?["content"] as? String == streamed
                })
                // The live process keeps its answer alive past a lease's lifetime: elsewhere it is still its own, and
                // every refusal says when that would end if the process were gone.
                try await Task.sleep(for: .seconds(Self.leaseSeconds + 2))
                let alive = try await client.call(.get, answerPath, clientKey: key, token: person.token)
                #expect(alive["status"] as? String == "streaming")
                // (Two slots for the retry: with one, it is refused for the slot before the answer is looked at.)
                try await hearth.admin("UPDATE billing_plans SET concurrent_streams = 2")
                let early = try await client.call(.post, answerPath + "/retry", clientKey: key, token: person.token)
                try await hearth.admin("UPDATE billing_plans SET concurrent_streams = 1")
                #expect(early.status == .conflict && early.errorCode == "not_retryable")
                #expect(Self.retryAfter(early).map { (1...Self.leaseSeconds).contains($0) } == true)
                let busy = try await client.call(.get, answerPath + "/events", clientKey: key, token: person.token)
                #expect(busy.status == .conflict && busy.errorCode == "generation_in_progress")
                #expect(Self.retryAfter(busy).map { (1...Self.leaseSeconds).contains($0) } == true)
                let full = try await client.call(.post, elsewhere.messagesPath, clientKey: key, token: person.token,
                                                 json: ["content": "Meanwhile, another question."])
                #expect(full.status == .tooManyRequests && full.headers[.rateLimitPolicy] == "\"concurrent-streams\";q=1")
                #expect(Self.retryAfter(full).map { (1...Self.leaseSeconds).contains($0) } == true)

                // kill -9, then the same server again on the same database.
                server.kill()
                mock.release()
                server = try await HearthProcess.start(hearth, masterKey: masterKey)
                let restarted = SSEClient(port: server.port, clientKey: key, token: person.token)

                // Once its lease has lapsed, reconnecting serves the stored text and an interrupted status.
                var replay: [ReceivedEvent] = []
                #expect(try await waitUntil(timeout: .seconds(60), every: .milliseconds(200)) {
                    guard let (status, events) = try? await restarted.events(.GET, answerPath + "/events") else { return false }
                    replay = events
                    return status == 200
                })
                #expect(replay.names == ["start", "delta", "error"])
                #expect(replay.text == streamed)
                #expect(replay.last?["status"] as? String == "interrupted" && replay.last?["retryable"] as? Bool == true)
                let stored = try await client.call(.get, answerPath, clientKey: key, token: person.token)
                #expect(stored["status"] as? String == "interrupted" && stored["content"] as? String == streamed)

                // The slot is free: another answer is admitted and stored, and then the interrupted one regenerates.
                let other = try await client.call(.post, elsewhere.messagesPath, clientKey: key, token: person.token,
                                                  json: ["content": "Now, my question."])
                #expect(other.status == .ok)
                let (status, retried) = try await restarted.events(.POST, answerPath + "/retry")
                #expect(status == 200 && retried.last?.event == "done")
                #expect(retried.text.hasPrefix(streamed) && retried.text.count > streamed.count)
                #expect(try await hearth.adminCount("stream_leases") == 0)
            }
        }
    }

    static func retryAfter(_ response: APIResponse) -> Int? {
        response.headers[.retryAfter].flatMap(Int.init)
    }
}

/// `hearth serve` as its own process, on the test instance's database and master key.
private struct HearthProcess {
    let pid: pid_t
    let port: Int

    static func start(_ hearth: TestHearth, masterKey: String) async throws -> HearthProcess {
        let port = try EmbeddedPostgres.freePort()
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HEARTH_DATABASE_URL": hearth.databases.app.string,
            "HEARTH_MIGRATION_DATABASE_URL": hearth.databases.admin.string,
            "HEARTH_MASTER_KEY": masterKey,
            "HEARTH_HOST": "127.0.0.1",
            "HEARTH_PORT": String(port),
            "HEARTH_RESOURCES_DIR": TestPaths.repositoryRoot.path,
            "HEARTH_LOG_LEVEL": "warning",
            "HEARTH_ANSWER_LEASE_SECONDS": String(CrashRecoveryTests.leaseSeconds),
            // This instance sweeps abandoned answers, promptly.
            "HEARTH_JOB_WORKERS": "1",
            "HEARTH_JOB_POLL_MS": "50",
            // A held answer is silent for seconds; a loaded machine is slow to a first token.
            "HEARTH_LLM_IDLE_TIMEOUT_SECONDS": "120",
            "HEARTH_LLM_FIRST_TOKEN_TIMEOUT_SECONDS": "60",
            "HEARTH_LLM_FAILURE_BUDGET_SECONDS": "60",
        ]
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-crash-\(port).log").path
        let pid = try ChildProcess.start([CommandLineTests.binary, "serve"], in: TestPaths.repositoryRoot.path, environment: environment, logPath: log)
        let server = HearthProcess(pid: pid, port: port)
        let ready = try await waitUntil(every: .milliseconds(100)) {
            let response = try? await HTTPClient.shared.execute(.init(url: "http://127.0.0.1:\(port)/readyz"), timeout: .seconds(5))
            return response?.status == .ok
        }
        guard ready else {
            server.kill()
            throw NotReady(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
        return server
    }

    struct NotReady: Error { let log: String }

    /// SIGKILL: no graceful shutdown, nothing flushed.
    func kill() {
        guard Foundation.kill(pid, SIGKILL) == 0 else { return }
        _ = ChildProcess.wait(pid)
    }
}
