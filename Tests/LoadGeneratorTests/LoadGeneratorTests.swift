import Foundation
import HearthPlatform
import HearthTestSupport
import LoadGenerator
import MockLLM
import Testing

/// hearth-load against a live Hearth whose tenant streams from the mock, and directly against the mock.
@Suite struct LoadGeneratorTests {
    /// A live Hearth whose new tenant answers through a mock LLM; `body` gets the mock, Hearth, the tenant's
    /// client key and Hearth's base URL.
    func onHearthWithMock(
        _ knobs: MockKnobs, tenant settings: TenantStore.Settings = .init(),
        _ body: @Sendable (MockLLMControls, Int, TestHearth, String, LoadTarget) async throws -> Void
    ) async throws {
        try await withMockedHearth(knobs, tenant: settings) { controls, hearth, key, mockPort in
            try await hearth.liftLimits()
            try await hearth.test { client in
                try await body(controls, mockPort, hearth, key, try LoadTarget("http://127.0.0.1:\(client.port!)", allowRemote: false))
            }
        }
    }

    @Test func aChatRunMeasuresEveryTurnThroughHearthAndDirect() async throws {
        try await onHearthWithMock(.init(responseTokens: 12)) { controls, mockPort, hearth, key, target in
            let benchmark = ChatBenchmark(
                hearth: target, clientKey: key,
                direct: try LoadTarget("http://127.0.0.1:\(mockPort)/v1", allowRemote: false),
                shape: LoadShape(users: 3, turns: 9, thinkTime: .milliseconds(5))
            )
            let report = try await benchmark.run()
            #expect(report.hearth.measured.completed == 9)
            #expect(report.hearth.measured.errors.isEmpty)
            #expect(report.hearth.measured.timeToFirstToken.count == 9)
            #expect(report.hearth.measured.total.count == 9)
            #expect(report.direct?.measured.completed == 9)
            // 9 direct requests and 9 through Hearth reached the mock; Hearth stored 9 answers and charged 9 usage records.
            #expect(controls.requestCount == 18)
            #expect(try await hearth.adminCount("usage_records WHERE outcome = 'completed'") == 9)
            #expect(try await hearth.adminCount("messages WHERE role = 'assistant' AND status = 'complete'") == 9)
            #expect(try await hearth.adminCount("users") == 3)
            #expect((report.cpuPerTurnMilliseconds ?? 0) > 0)
            #expect((report.peakResidentBytes ?? 0) > 0)
            #expect(report.hearth.measured.peakOpenStreams <= 3)
            // Time to first token can never exceed the whole turn.
            #expect(report.hearth.measured.timeToFirstToken.milliseconds(at: 50) <= report.hearth.measured.total.milliseconds(at: 50))
            let last = report.text.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("users=3 turns=9 errors=0 "))
            #expect(last.contains("added_ttft_p50_ms=") && last.contains("cpu_per_turn_ms="))
        }
    }

    @Test func providerFailuresAndRefusedKeysAreReportedByKind() async throws {
        try await onHearthWithMock(.init(responseTokens: 4)) { controls, _, _, key, target in
            // 400 is not retryable and there is no fallback: each turn ends in the friendly unavailable answer.
            controls.script([.status(400), .status(400), nil])
            let report = try await ChatBenchmark(hearth: target, clientKey: key, direct: nil, shape: LoadShape(users: 1, turns: 3)).run()
            #expect(report.hearth.measured.errors == ["event_providers_unavailable": 2])
            #expect(report.hearth.measured.completed == 1)
            #expect(report.text.contains("errors (hearth): event_providers_unavailable=2"))

            await #expect(throws: SetUpFailed.self) {
                try await ChatBenchmark(hearth: target, clientKey: "hk_wrong", direct: nil, shape: LoadShape(users: 1, turns: 1)).run()
            }
        }
    }

    @Test func aStreamThatGoesSilentAfterItsHeadCountsAsTimedOut() async throws {
        try await onHearthWithMock(.init(responseTokens: 4)) { controls, mockPort, _, key, target in
            // The direct turn comes first: the mock sends its head, then only keep-alive comments for five seconds
            // and an end with no answer. The turn's one-second deadline covers the stream, not just the head, so it
            // counts as timed out, not as a stream cut short. (Hearth's turn has the same second, too short to rely on
            // in a parallel run, so it is not looked at.)
            controls.script([.stall])
            var benchmark = ChatBenchmark(hearth: target, clientKey: key,
                                          direct: try LoadTarget("http://127.0.0.1:\(mockPort)/v1", allowRemote: false),
                                          shape: LoadShape(users: 1, turns: 1))
            benchmark.timeout = .seconds(1)
            let report = try await benchmark.run()
            #expect(report.direct?.measured.errors == ["timeout": 1])
            #expect(report.direct?.measured.completed == 0)
        }
    }

    @Test func historyPagesAndContextLoadsAreSeededThroughTheAPIAndTimed() async throws {
        try await onHearthWithMock(.init(responseTokens: 3), tenant: .init(promptDebug: true)) { _, _, hearth, key, target in
            var benchmark = HistoryBenchmark(hearth: target, clientKey: key,
                                             threads: 2, turnsPerThread: 30, pages: 6)
            benchmark.contextLoads = 4
            let report = try await benchmark.run()
            #expect(report.errors.isEmpty)
            #expect(report.messages == 120)
            #expect(report.pages.count == 6)
            #expect(report.contextLoads.count == 4)
            #expect(try await hearth.adminCount("messages") == 120)
            #expect(try await hearth.adminCount("context_profiles WHERE profile_ciphertext IS NOT NULL") == 1)
            let summary = try #require(report.text.split(separator: "\n").last)
            #expect(summary.hasPrefix("messages=120 pages=6 errors=0 page_p50_ms="))
            #expect(summary.contains(" context_loads=4 context_p50_ms="))
            // No job workers here: the sessions are ended, but no memory is written, and the wait gives up.
            #expect(summary.hasSuffix(" summaries=0 facts=0"))
        }
    }

    @Test func contextLoadsNeedATenantThatAllowsThePromptView() async throws {
        try await onHearthWithMock(.init(responseTokens: 1)) { _, _, _, key, target in
            var benchmark = HistoryBenchmark(hearth: target, clientKey: key, threads: 1, turnsPerThread: 1, pages: 0)
            benchmark.contextLoads = 2
            let report = try await benchmark.run()
            #expect(report.errors == ["http_403": 2])
        }
    }

    @Test(arguments: ["http://10.0.0.5:8080", "http://example.com", "ftp://127.0.0.1", "not a url"])
    func onlyLoopbackTargetsUnlessAllowed(_ url: String) {
        #expect(throws: LoadTarget.Refused.self) { try LoadTarget(url, allowRemote: false) }
    }

    @Test func loopbackTargetsAndRemoteOnRequest() throws {
        #expect(try LoadTarget("http://127.0.0.1:9090/v1/", allowRemote: false).url("/chat/completions") == "http://127.0.0.1:9090/v1/chat/completions")
        #expect(try LoadTarget("http://localhost:8080", allowRemote: false).url("/v1/threads") == "http://localhost:8080/v1/threads")
        #expect(try LoadTarget("http://[::1]:8080", allowRemote: false).origin == "http://[::1]:8080")
        #expect(try LoadTarget("https://coach.example.com", allowRemote: true).origin == "https://coach.example.com")
    }

    @Test func aRunBoundedByNothingOrByZeroIsRefusedBeforeItStarts() throws {
        #expect(LoadShape(users: 64, turns: 5000, thinkTime: .milliseconds(250)).problem == nil)
        #expect(LoadShape(users: 1, duration: .seconds(10)).problem == nil)
        #expect(LoadShape(users: 0, turns: 5).problem == "--users must be at least 1.")
        #expect(LoadShape(users: 1).problem == "Bound the run with --turns or --duration (or both).")
        #expect(LoadShape(users: 1, turns: 0).problem == "--turns must be at least 1.")
        #expect(LoadShape(users: 1, duration: .zero).problem == "--duration must be more than 0 seconds.")
        #expect(LoadShape(users: 1, turns: 5, thinkTime: .milliseconds(-5)).problem == "--think-ms must be 0 or more.")

        let target = try LoadTarget("http://127.0.0.1:8080", allowRemote: false)
        #expect(HistoryBenchmark(hearth: target, clientKey: "k", threads: 20, turnsPerThread: 25, pages: 400).problem == nil)
        #expect(HistoryBenchmark(hearth: target, clientKey: "k", threads: 0, turnsPerThread: 25, pages: 400).problem == "--threads must be at least 1.")
        #expect(HistoryBenchmark(hearth: target, clientKey: "k", threads: 20, turnsPerThread: 0, pages: 400).problem
            == "--turns-per-thread must be at least 1.")
        #expect(HistoryBenchmark(hearth: target, clientKey: "k", threads: 20, turnsPerThread: 25, pages: 0).problem == "--pages must be at least 1.")
        var loads = HistoryBenchmark(hearth: target, clientKey: "k", threads: 20, turnsPerThread: 25, pages: 400)
        loads.contextLoads = -1
        #expect(loads.problem == "--context-loads must be 0 or more.")
    }
}
