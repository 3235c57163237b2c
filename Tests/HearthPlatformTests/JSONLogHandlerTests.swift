import Foundation
import HearthPlatform
import Logging
import NIOConcurrencyHelpers
import Testing

@Suite struct JSONLogHandlerTests {
    @Test func writesOneJSONObjectPerLineWithMetadata() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "hearth.test") { label in
            JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(line) } }
        }
        logger[metadataKey: "request_id"] = "abc123"
        logger.info("request", metadata: ["status": .stringConvertible(201), "route": "/v1/me"])
        logger.debug("dropped below the level")
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1)
        #expect(!written[0].contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(object["message"] as? String == "request")
        #expect(object["level"] as? String == "info")
        #expect(object["logger"] as? String == "hearth.test")
        #expect(object["request_id"] as? String == "abc123")
        #expect(object["status"] as? String == "201")
        #expect(object["ts"] is String)
    }
}
