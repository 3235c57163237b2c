import Foundation
import HearthApp
import PostgresNIO
import ServiceLifecycle
import HearthPlatform
import HearthTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing

@Suite struct HTTPBasicsTests {
    @Test func badInputGetsTheJSONErrorShapeNeverA500() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let cases: [(APIResponse, Int, String)] = [
                (try await client.call(.post, "/v1/auth/email/signup", clientKey: key, rawBody: "{not json"), 400, "invalid_body"),
                (try await client.call(.post, "/v1/auth/email/signup", clientKey: key, rawBody: #"{"email": 5, "password": "x"}"#), 400, "invalid_body"),
                (try await client.call(.post, "/v1/auth/email/signup", clientKey: key, rawBody: #"{"email": "a@b.co"}"#), 400, "invalid_body"),
                (try await client.call(.post, "/v1/auth/email/signup", clientKey: key, rawBody: "[]"), 400, "invalid_body"),
                (try await client.call(.post, "/v1/auth/email/signup", clientKey: key), 400, "invalid_body"),
                (try await client.call(.post, "/v1/auth/email/signup", clientKey: key,
                                       rawBody: #"{"email": "a@b.co", "password": ""# + String(repeating: "x", count: 70_000) + #""}"#), 413, "payload_too_large"),
                (try await client.call(.get, "/v1/no/such/route", clientKey: key), 404, "not_found"),
                (try await client.call(.get, "/nowhere"), 404, "not_found"),
                (try await client.call(.put, "/v1/me", clientKey: key), 405, "method_not_allowed"),
                (try await client.call(.trace, "/v1/threads", clientKey: key), 405, "method_not_allowed"),
                (try await client.call(.post, "/v1/auth/refresh", clientKey: key, rawBody: #"{"refreshToken": null}"#), 400, "invalid_body"),
            ]
            for (response, status, code) in cases {
                #expect(response.status.code == status, "\(response.text)")
                #expect(response.errorCode == code, "\(response.text)")
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let error = response.json["error"] as? [String: Any]
                #expect(error?["message"] is String)
            }
        }
    }

    /// A request the HTTP parser cannot read (here a request line of 200 KB, over NIO's 80 KiB limit) gets the JSON
    /// error shape too, and its connection is closed.
    @Test func anUnreadableRequestGetsTheJSONErrorShape() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let raw = RawHTTP(port: try #require(client.port))
            let response = try await raw.send("GET", "/v1/threads?cursor=" + String(repeating: "a", count: 200_000),
                                              headers: [RawHTTP.header("X-Hearth-Client-Key", key)])
            #expect(response.status == 400)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(response.text.contains(#""code":"bad_request""#), "\(response.text)")
            // The server goes on serving.
            #expect(try await client.call(.get, "/healthz").status == .ok)
        }
    }

    /// A handler, its response's body and the tasks it starts run on the event loop of the request's connection
    /// (`HTTPServerBuilder.http1OnConnectionLoops`), where its own I/O needs no hand-over between threads.
    @Test func aRequestRunsOnItsConnectionsEventLoop() async throws {
        let hearth = try await TestHearth.make()
        let response = try await hearth.test(configureRouter: { router in
            router.get("/test/loop") { _, _ -> Response in
                // On an event loop from the start, and the same one throughout.
                let loop = MultiThreadedEventLoopGroup.currentEventLoop
                let inHandler = loop != nil
                let inTask = await Task(executorPreference: EventLoopTaskExecutor.current) {
                    loop != nil && MultiThreadedEventLoopGroup.currentEventLoop === loop
                }.value
                return Response(status: .ok, body: ResponseBody { writer in
                    let inBody = loop != nil && MultiThreadedEventLoopGroup.currentEventLoop === loop
                    try await writer.write(ByteBuffer(string: "handler \(inHandler), task \(inTask), body \(inBody)"))
                    try await writer.finish(nil)
                })
            }
        }) { client in try await client.call(.get, "/test/loop") }
        #expect(response.text == "handler true, task true, body true")
    }

    @Test func everyResponseCarriesARequestIDAndAcceptsASaneOne() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.test { client in
            let generated = try await client.call(.get, "/healthz")
            #expect((generated.headers[.requestID]?.count ?? 0) >= 16)
            let echoed = try await client.call(.get, "/nowhere", headers: [.requestID: "client-abc-12345"])
            #expect(echoed.headers[.requestID] == "client-abc-12345")
            let hostile = try await client.call(.get, "/healthz", headers: [.requestID: "bad id\" injected"])
            #expect(hostile.headers[.requestID] != "bad id\" injected")
        }
    }

    @Test func healthReadinessAndMetrics() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.test { client in
            #expect(try await client.call(.get, "/healthz")["status"] as? String == "ok")
            #expect(try await client.call(.get, "/readyz")["status"] as? String == "ready")
            _ = try await client.call(.get, "/healthz")
            let metrics = try await client.call(.get, "/metrics")
            #expect(metrics.status == .ok)
            #expect(metrics.text.contains("hb_requests"))
            let cpu = metrics.text.split(separator: "\n").first { $0.hasPrefix("process_cpu_seconds_total ") }
            #expect(cpu.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 > 0 } == true)
            #expect(metrics.text.contains("process_resident_memory_bytes "))
        }
    }

    @Test func readinessFailsWhenPostgresIsUnreachable() async throws {
        let hearth = try await TestHearth.make()
        try await hearth.test { client in
            #expect(try await client.call(.get, "/readyz").status == .ok)
            // Take the database away from under the running server.
            let endpoints = try await TestPostgres.shared.serverEndpoints()
            let name = hearth.databases.app.database
            try await Database.connect(to: endpoints.admin.with(database: "postgres"), logger: TestLogs.quiet) { database in
                try await database.client.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: TestLogs.quiet)
            }
            let response = try await client.call(.get, "/readyz")
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorCode == "not_ready")
            #expect(try await client.call(.get, "/healthz").status == .ok)
        }
    }

    @Test func inFlightRequestsFinishDuringGracefulShutdown() async throws {
        let hearth = try await TestHearth.make()
        var config = hearth.config
        config.port = try EmbeddedPostgres.freePort()
        let port = config.port
        // The handler says when it has started, so shutdown begins with the request surely in flight.
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let app = try await buildApplication(config, logger: TestLogs.quiet) { router in
            router.get("test/slow") { _, _ -> String in
                startedContinuation.yield()
                try await Task.sleep(for: .milliseconds(500))
                return "finished"
            }
        }
        // What SIGTERM/SIGINT do in production: a graceful shutdown of the service group.
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: TestLogs.quiet))
        let service = Task { try await group.run() }
        // Wait for the port to answer (a minute at most: early in a full parallel run a server starts slowly).
        let ready = try await waitUntil(timeout: .seconds(60), every: .milliseconds(50)) {
            (try? await HTTPProbe.get(port: port, path: "/healthz")) != nil
        }
        #expect(ready)
        async let slow = HTTPProbe.get(port: port, path: "/test/slow")
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        await group.triggerGracefulShutdown()
        let (status, body) = try await slow
        #expect(status == 200)
        #expect(body == "finished")
        _ = await service.result
        // The client retries a refused connection until its timeout, so this one is short.
        #expect((try? await HTTPProbe.get(port: port, path: "/healthz", timeout: .seconds(2))) == nil)
    }
}

@Suite struct SerialisationTests {
    @Test func responsesSerialiseDeterministically() async throws {
        let hearth = try await TestHearth.make()
        let (_, key) = try await hearth.createTenant()
        try await hearth.test { client in
            let grant = try await client.anonymous(clientKey: key)
            let me = try await client.call(.get, "/v1/me", clientKey: key, token: grant.accessToken).text
            #expect(me.hasPrefix(#"{"createdAt":"#))
            let error = try await client.call(.get, "/v1/me", clientKey: key).text
            #expect(error.hasPrefix(#"{"error":{"code":"authentication_required","message":"#))
        }
    }
}
