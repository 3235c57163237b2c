import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization
import WSClient

/// Debian's headless Chromium driven over the Chrome DevTools Protocol, for the console's browser check: a
/// real browser loads the pages, applies their security policy and stylesheet, and reports every failed
/// response and console error.
public enum Chromium {
    public static let path = "/usr/bin/chromium"

    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Under CI as root, where `scripts/test` installs it, the browser check must run: a Chromium that could not be
    /// installed fails it instead of skipping it.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] != nil && getuid() == 0 }

    /// Starts Chromium with a fresh profile, runs `body` with a session on its first tab, and stops it.
    public static func withPage<T: Sendable>(_ body: @escaping @Sendable (DevToolsPage) async throws -> T) async throws -> T {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                             "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=\(profile.path)", "--window-size=1280,900", "about:blank"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let port = try await devToolsPort(profile: profile)
        let target = try await pageSocket(port: port)
        let result = Outcome<T>()
        try await WebSocketClient.connect(url: target, configuration: .init(maxFrameSize: 1 << 24), logger: Logger(label: "chromium")) {
            inbound, outbound, _ in
            let page = DevToolsPage(inbound: inbound.messages(maxSize: 1 << 26).makeAsyncIterator(), outbound: outbound)
            do {
                let value = try await body(page)
                result.value.withLock { $0 = .success(value) }
            } catch {
                result.value.withLock { $0 = .failure(error) }
            }
        }
        guard let outcome = result.value.withLock({ $0 }) else { throw DevToolsError("the DevTools connection closed early") }
        return try outcome.get()
    }

    /// Chromium writes the port it chose to `DevToolsActivePort` in the profile once it listens.
    private static func devToolsPort(profile: URL) async throws -> Int {
        let file = profile.appendingPathComponent("DevToolsActivePort")
        var port: Int?
        _ = try await waitUntil(timeout: .seconds(30), every: .milliseconds(100)) {
            port = (try? String(contentsOf: file, encoding: .utf8)).flatMap { $0.split(separator: "\n").first }.flatMap { Int($0) }
            return port != nil
        }
        guard let port else { throw DevToolsError("Chromium did not open its DevTools port within 30 s") }
        return port
    }

    /// The WebSocket address of the browser's tab (`/json/list`).
    private static func pageSocket(port: Int) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/json/list"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        let targets = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]] ?? []
        guard let page = targets.first(where: { $0["type"] as? String == "page" }), let socket = page["webSocketDebuggerUrl"] as? String else {
            throw DevToolsError("Chromium has no page to drive")
        }
        return socket
    }
}

/// What the page session's task hands back across the WebSocket client's handler.
private final class Outcome<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
}

public struct DevToolsError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One tab: commands are sent one at a time and their answers awaited; the events that arrive meanwhile are
/// kept as problems when they are failed responses, failed loads or console errors.
public final class DevToolsPage: @unchecked Sendable {
    // Used only from the one task that drives the page.
    private var inbound: WebSocketInboundMessageStream.AsyncIterator
    private let outbound: WebSocketOutboundWriter
    private var nextID = 0
    private var loaded = false
    /// What went wrong since the last ``takeProblems()``: "404 http://…", "console error: …".
    private var problems: [String] = []

    init(inbound: WebSocketInboundMessageStream.AsyncIterator, outbound: WebSocketOutboundWriter) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// Sends a command and returns its `result`.
    @discardableResult
    public func send(_ method: String, _ params: [String: Any] = [:]) async throws -> [String: Any] {
        nextID += 1
        let id = nextID
        let message = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
        try await outbound.write(.text(String(decoding: message, as: UTF8.self)))
        while true {
            let message = try await receive()
            if message["id"] as? Int == id {
                if let error = message["error"] as? [String: Any] { throw DevToolsError("\(method): \(error["message"] ?? error)") }
                return message["result"] as? [String: Any] ?? [:]
            }
        }
    }

    /// Turns on the events the check reads.
    public func enable() async throws {
        for domain in ["Page", "Runtime", "Log", "Network"] { try await send("\(domain).enable") }
    }

    /// Opens `url` and waits for its load event.
    public func open(_ url: String) async throws {
        loaded = false
        let result = try await send("Page.navigate", ["url": url])
        if let failure = result["errorText"] as? String { problems.append("\(failure) \(url)") }
        try await waitForLoad()
    }

    /// Waits for the load event, then a moment more, so what a page fetches or logs just after it (its icon, say)
    /// is counted against that page rather than the next.
    public func waitForLoad() async throws {
        while !loaded { _ = try await receive() }
        loaded = false
        _ = try await send("Runtime.evaluate", ["expression": "new Promise(done => setTimeout(done, 100))", "awaitPromise": true])
    }

    /// Evaluates `expression` in the page and returns its value (JSON-compatible values only).
    public func evaluate(_ expression: String) async throws -> Any? {
        let result = try await send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw DevToolsError("evaluating \(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Runs `expression`, which navigates (submits a form, say), and waits for the page it leads to.
    public func navigate(by expression: String) async throws {
        loaded = false
        _ = try await evaluate(expression)
        try await waitForLoad()
    }

    /// A PNG of the page as it is now, the whole page's height.
    public func screenshot() async throws -> Data {
        let result = try await send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        guard let base64 = result["data"] as? String, let png = Data(base64Encoded: base64) else { throw DevToolsError("no screenshot") }
        return png
    }

    public func takeProblems() -> [String] {
        defer { problems = [] }
        return problems
    }

    private func receive() async throws -> [String: Any] {
        guard let message = try await inbound.next() else { throw DevToolsError("the DevTools connection closed") }
        let data: Data
        switch message {
        case .text(let text): data = Data(text.utf8)
        case .binary(let buffer): data = Data(buffer.readableBytesView)
        }
        let event = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        note(event)
        return event
    }

    private func note(_ event: [String: Any]) {
        let params = event["params"] as? [String: Any] ?? [:]
        switch event["method"] as? String {
        case "Page.loadEventFired":
            loaded = true
        case "Network.responseReceived":
            if let response = params["response"] as? [String: Any], let status = response["status"] as? Int, status >= 400 {
                problems.append("\(status) \(response["url"] ?? "")")
            }
        case "Network.loadingFailed":
            if params["canceled"] as? Bool != true {
                problems.append("failed to load (\(params["errorText"] ?? "")\(params["blockedReason"].map { ", blocked: \($0)" } ?? ""))")
            }
        case "Log.entryAdded":
            if let entry = params["entry"] as? [String: Any], entry["level"] as? String == "error" {
                problems.append("console error: \(entry["text"] ?? "") \(entry["url"] ?? "")")
            }
        case "Runtime.consoleAPICalled":
            if params["type"] as? String == "error" { problems.append("console.error: \(params["args"] ?? "")") }
        case "Runtime.exceptionThrown":
            problems.append("exception: \(params["exceptionDetails"] ?? "")")
        default:
            break
        }
    }
}
