import Foundation
import HearthPlatform
import HearthTestSupport
import Hummingbird
import NIOConcurrencyHelpers
import Testing
import Yams

/// `docs/openapi.yaml` is the contract: every registered route must be in it, and it must describe
/// nothing that does not exist.
@Suite struct OpenAPIContractTests {
    @Test func theDocumentDescribesExactlyTheRegisteredRoutes() async throws {
        let hearth = try await TestHearth.make()
        let registered = NIOLockedValueBox<Set<String>>([])
        let served = try await hearth.test(configureRouter: { router in
            registered.withLockedValue { set in
                for route in router.routes {
                    // Hummingbird writes captures as {id}; OpenAPI does too.
                    set.insert("\(route.method.rawValue.lowercased()) \(route.path)")
                }
            }
        }) { client in try await client.call(.get, "/openapi.yaml") }
        #expect(served.status == .ok)
        #expect(served.headers[.contentType]?.hasPrefix("application/yaml") == true)

        let document = try #require(try Yams.load(yaml: served.text) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        var documented: Set<String> = []
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for (path, item) in paths {
            for method in (item as? [String: Any] ?? [:]).keys where methods.contains(method) {
                documented.insert("\(method) \(path)")
            }
        }
        let routes = registered.withLockedValue { $0 }
        #expect(routes.count > 10)
        #expect(routes.subtracting(documented).isEmpty, "registered but undocumented: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented but not registered: \(documented.subtracting(routes).sorted())")
    }

    @Test func theServedDocumentIsTheFileInDocs() async throws {
        let hearth = try await TestHearth.make()
        let served = try await hearth.test { client in try await client.call(.get, "/openapi.yaml") }
        let file = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        #expect(served.text == file)
    }
}
