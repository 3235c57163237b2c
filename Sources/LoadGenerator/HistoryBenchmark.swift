import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// The history scenario: one user with many sessions and messages (seeded through the API, so every message
/// is really encrypted and stored), then pages of 50 read back one after another, first pages and cursor pages;
/// then, if asked, the context load of a turn for that user: the prompt assembled through the debug view
/// (`prompt-preview`, which the tenant must allow), built exactly as a send builds it.
public struct HistoryBenchmark: Sendable {
    public var hearth: LoadTarget
    public var clientKey: String
    public var threads: Int
    /// Turns per thread; each stores two messages.
    public var turnsPerThread: Int
    public var pages: Int
    /// Prompts assembled after the pages (0: none).
    public var contextLoads = 0
    public var pageSize = 50
    public var seedConcurrency = 8
    public var timeout: Duration = .seconds(60)

    /// Why this run cannot measure anything (`nil` when it can).
    public var problem: String? {
        if threads < 1 { return "--threads must be at least 1." }
        if turnsPerThread < 1 { return "--turns-per-thread must be at least 1." }
        if pages < 1 { return "--pages must be at least 1." }
        if contextLoads < 0 { return "--context-loads must be 0 or more." }
        return nil
    }

    public init(hearth: LoadTarget, clientKey: String, threads: Int, turnsPerThread: Int, pages: Int) {
        self.hearth = hearth
        self.clientKey = clientKey
        self.threads = threads
        self.turnsPerThread = turnsPerThread
        self.pages = pages
    }

    public struct Report: Sendable {
        public let messages: Int
        public let seedElapsed: Duration
        public let pages: Latencies
        public let contextLoads: Latencies
        /// Summaries and active facts the user had while contexts were loaded.
        public let memory: (summaries: Int, facts: Int)
        public let errors: [String: Int]

        public var text: String {
            var lines = ["seeded \(messages) messages in \(ChatReport.format(seedElapsed))",
                         "history page p50 \(ChatReport.ms(pages.milliseconds(at: 50))) p95 \(ChatReport.ms(pages.milliseconds(at: 95)))"
                            + " p99 \(ChatReport.ms(pages.milliseconds(at: 99))) max \(ChatReport.ms(pages.maxMilliseconds)) over \(pages.count) pages"]
            if contextLoads.count > 0 {
                lines.append("context load p50 \(ChatReport.ms(contextLoads.milliseconds(at: 50))) p95 \(ChatReport.ms(contextLoads.milliseconds(at: 95)))"
                    + " p99 \(ChatReport.ms(contextLoads.milliseconds(at: 99))) max \(ChatReport.ms(contextLoads.maxMilliseconds)) over \(contextLoads.count) prompts"
                    + " (memory: \(memory.summaries) session summaries, \(memory.facts) facts)")
            }
            if !errors.isEmpty { lines.append("errors: " + errors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) }
            var summary = "messages=\(messages) pages=\(pages.count) errors=\(errors.values.reduce(0, +))"
                + " page_p50_ms=\(ChatReport.plain(pages.milliseconds(at: 50))) page_p95_ms=\(ChatReport.plain(pages.milliseconds(at: 95)))"
                + " page_p99_ms=\(ChatReport.plain(pages.milliseconds(at: 99)))"
            if contextLoads.count > 0 {
                summary += " context_loads=\(contextLoads.count) context_p50_ms=\(ChatReport.plain(contextLoads.milliseconds(at: 50)))"
                    + " context_p95_ms=\(ChatReport.plain(contextLoads.milliseconds(at: 95)))"
                    + " summaries=\(memory.summaries) facts=\(memory.facts)"
            }
            lines.append(summary)
            return lines.joined(separator: "\n")
        }
    }

    private struct Page: Decodable {
        struct Message: Decodable { let id: String }
        let messages: [Message]
        let nextCursor: String?
    }

    public func run() async throws -> Report {
        try await HTTPClient.withLoadClient(connections: seedConcurrency) { try await run(with: $0) }
    }

    private func run(with client: HTTPClient) async throws -> Report {
        let driver = HearthDriver(client: client, target: hearth, clientKey: clientKey, message: "", timeout: timeout)
        let seedStarted = ContinuousClock.now
        let user = try await driver.setUp(user: 0)
        var threadIDs = [user.threadID]
        for index in 1..<max(1, threads) {
            threadIDs.append(try await driver.createThread(token: user.token, title: "history \(index)"))
        }
        try await seed(threadIDs, driver: driver, user: user, client: client)
        let seedElapsed = ContinuousClock.now - seedStarted

        var errors: [String: Int] = [:]
        var cursors: [String: String] = [:]
        var usedCursor = false
        let pageLatencies = await measure(pages, client: client, errors: &errors) { index in
            let threadID = threadIDs[index % threadIDs.count]
            // Alternate first pages and the page after, so both the head and the cursor path are measured.
            let cursor = index % 2 == 1 ? cursors[threadID] : nil
            usedCursor = cursor != nil
            var request = HTTPClientRequest(url: hearth.url("/v1/threads/\(threadID)/messages?limit=\(pageSize)" + (cursor.map { "&cursor=\($0)" } ?? "")))
            for (name, value) in driver.headers(user.token) { request.headers.add(name: name, value: value) }
            return request
        } check: { index, body in
            let page = try JSONDecoder().decode(Page.self, from: body)
            guard page.messages.count == min(pageSize, turnsPerThread * 2 - (usedCursor ? pageSize : 0)) else { return false }
            if !usedCursor { cursors[threadIDs[index % threadIDs.count]] = page.nextCursor }
            return true
        }
        var memory = (summaries: 0, facts: 0)
        if contextLoads > 0 {
            memory = try await remember(threadIDs, driver: driver, user: user, client: client)
            // What the user shared goes into every prompt, so it is part of the load.
            struct Profile: Encodable {
                let preferredName = "Sam"
                let goals = ["sleep before midnight", "speak up in meetings"]
                let currentStressors = ["a move"]
            }
            let profile = try HTTPClientRequest.json(.PATCH, hearth.url("/v1/me/context"), body: Profile(), headers: driver.headers(user.token))
            _ = try await client.execute(profile, timeout: .init(timeout))
        }
        let contextLatencies = await measure(contextLoads, client: client, errors: &errors) { index in
            try HTTPClientRequest.json(.POST, hearth.url("/v1/threads/\(threadIDs[index % threadIDs.count])/prompt-preview"),
                                       body: ["content": "What should I focus on this week?"], headers: driver.headers(user.token))
        } check: { _, body in
            struct Preview: Decodable { let messages: [[String: String]] }
            return try JSONDecoder().decode(Preview.self, from: body).messages.count == min(11, turnsPerThread * 2 + 1)
        }
        return Report(messages: threadIDs.count * turnsPerThread * 2, seedElapsed: seedElapsed, pages: pageLatencies,
                      contextLoads: contextLatencies, memory: memory, errors: errors)
    }

    /// Ends every thread's session, so the server's jobs write a summary per session and the facts they yield
    /// (the memory a turn then reads); waits until every summary exists.
    private func remember(_ threadIDs: [String], driver: HearthDriver, user: HearthDriver.User, client: HTTPClient) async throws -> (summaries: Int, facts: Int) {
        for threadID in threadIDs {
            let end = try HTTPClientRequest.json(.POST, hearth.url("/v1/threads/\(threadID)/end-session"), body: [String: String](), headers: driver.headers(user.token))
            _ = try await client.execute(end, timeout: .init(timeout))
        }
        struct Item: Decodable { let id: String }
        struct Summaries: Decodable { let summaries: [Item] }
        struct Facts: Decodable { let facts: [Item] }
        let deadline = ContinuousClock.now + .seconds(300)
        func count<T: Decodable>(_ path: String, _ type: T.Type, _ items: (T) -> Int) async throws -> Int {
            var request = HTTPClientRequest(url: hearth.url(path))
            for (name, value) in driver.headers(user.token) { request.headers.add(name: name, value: value) }
            return items(try await client.decoded(request, as: T.self, timeout: timeout))
        }
        // Facts follow their summaries by one more job each, behind whatever else is queued: wait until every
        // summary exists and the counts have held still for two seconds — or stop once nothing has moved for
        // ten (no job workers, or a model that cannot write memory).
        var (summaries, facts, still) = (0, 0, 0)
        var lastChange = ContinuousClock.now
        while ContinuousClock.now < deadline, ContinuousClock.now - lastChange < .seconds(10), still < 4 {
            try await Task.sleep(for: .milliseconds(500))
            let now = (try await count("/v1/me/memory/summaries?include_archived=true", Summaries.self) { $0.summaries.count },
                       try await count("/v1/me/memory/facts", Facts.self) { $0.facts.count })
            if now != (summaries, facts) {
                (summaries, facts, still) = (now.0, now.1, 0)
                lastChange = ContinuousClock.now
            } else if summaries >= threadIDs.count {
                still += 1
            }
        }
        return (summaries, facts)
    }

    /// Sends `count` requests one after another and records the time of those that answer 200 with a body
    /// `check` accepts; everything else is counted in `errors` by kind.
    private func measure(
        _ count: Int, client: HTTPClient, errors: inout [String: Int],
        request: (Int) throws -> HTTPClientRequest, check: (Int, ByteBuffer) throws -> Bool
    ) async -> Latencies {
        var latencies = Latencies()
        for index in 0..<count {
            do {
                let started = ContinuousClock.now
                let response = try await client.execute(try request(index), timeout: .init(timeout))
                let body = try await response.body.collect(upTo: 16 << 20)
                let elapsed = ContinuousClock.now - started
                guard response.status == .ok else { errors["http_\(response.status.code)", default: 0] += 1; continue }
                guard try check(index, body) else { errors["unexpected_body", default: 0] += 1; continue }
                latencies.record(elapsed)
            } catch {
                errors[StreamTimer.kind(of: error), default: 0] += 1
            }
        }
        return latencies
    }

    /// Varied enough that memory has something to keep: a recurring theme, goals and strategies.
    static func seedMessage(turn: Int, thread: Int) -> String {
        let topics = ["sleep", "running", "budgeting", "cooking", "guitar", "reading", "spanish", "climbing", "painting", "gardening"]
        let topic = topics[(thread + turn) % topics.count]
        switch turn % 5 {
        case 0: return "Session \(thread), turn \(turn): I stayed quiet in the meeting again when plans changed."
        case 1: return "My goal is to get better at \(topic) this month, thread \(thread)."
        case 2: return "Honestly \(topic) really helps me when the week gets heavy."
        default: return "Seed message \(turn) of thread \(thread): today I noticed how I react when plans change."
        }
    }

    /// Every thread gets its turns in order (a thread's turns are sequential, as in the app); threads in parallel.
    private func seed(_ threadIDs: [String], driver: HearthDriver, user: HearthDriver.User, client: HTTPClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, threadID) in threadIDs.enumerated() {
                if index >= seedConcurrency { try await group.next() }
                group.addTask {
                    for turn in 0..<turnsPerThread {
                        let request = try HTTPClientRequest.json(
                            .POST, hearth.url("/v1/threads/\(threadID)/messages"),
                            body: ["content": Self.seedMessage(turn: turn, thread: index)],
                            headers: driver.headers(user.token) + [("Accept", "application/json")]
                        )
                        struct Answer: Decodable { let userMessageId: String }
                        _ = try await client.decoded(request, as: Answer.self, timeout: timeout)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
