import Foundation
import HearthPlatform
import Logging
import NIOConcurrencyHelpers
import Testing

@Suite struct LineLogHandlerTests {
    /// A logger whose lines are kept, as text.
    static func logger(_ format: LineLogHandler.Format) -> (Logger, NIOLockedValueBox<[String]>) {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "hearth.test") { label in
            LineLogHandler(label: label, format: format) { line in lines.withLockedValue { $0.append(String(decoding: line, as: UTF8.self)) } }
        }
        logger[metadataKey: "request_id"] = "abc123"
        return (logger, lines)
    }

    @Test func writesOneJSONObjectPerLineWithMetadata() throws {
        let (logger, lines) = Self.logger(.json)
        logger.info("request", metadata: [
            "status": .stringConvertible(201), "route": "/v1/me", "note": "a \"quoted\"\nsecond line",
            "ids": .array(["1", "2"]), "counts": .dictionary(["b": "2", "a": .stringConvertible(1)]),
            "message": "metadata cannot replace the message",
        ])
        logger.debug("dropped below the level")
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1)
        #expect(written[0].hasSuffix("}\n"))
        #expect(written[0].dropLast().allSatisfy { $0 != "\n" })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(object["message"] as? String == "request")
        #expect(object["level"] as? String == "info")
        #expect(object["logger"] as? String == "hearth.test")
        #expect(object["request_id"] as? String == "abc123")
        #expect(object["status"] as? String == "201")
        #expect(object["note"] as? String == "a \"quoted\"\nsecond line")
        #expect(object["ids"] as? [String] == ["1", "2"])
        #expect(object["counts"] as? [String: String] == ["a": "1", "b": "2"])
        // Keys are sorted, as the encoder this replaced wrote them: the same event is always the same line.
        #expect(written[0].range(of: #""counts""#)!.lowerBound < written[0].range(of: #""ids""#)!.lowerBound)
        let time = try #require(object["ts"] as? String)
        let parsed = try #require(try? Date(time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
        #expect(abs(parsed.timeIntervalSinceNow) < 60)
    }

    @Test func aTextLineIsOneLineWithItsMetadataSorted() {
        let (logger, lines) = Self.logger(.text)
        logger.warning("job failed", metadata: ["job_id": .stringConvertible(7), "error": "bad\nanswer"])
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1)
        let line = written[0]
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().allSatisfy { $0 != "\n" })
        // 2026-11-29T03:17:13.042Z warning hearth.test: job failed error=bad\nanswer job_id=7 request_id=abc123 [HearthPlatformTests]
        let parts = line.dropLast().split(separator: " ", maxSplits: 2)
        #expect(parts[0].count == 24 && parts[0].hasSuffix("Z"))
        #expect(parts[1] == "warning")
        #expect(parts[2] == #"hearth.test: job failed error=bad\nanswer job_id=7 request_id=abc123 [HearthPlatformTests]"#)
    }

    @Test func theTimestampIsUTCWithMilliseconds() throws {
        let before = Date()
        let (logger, lines) = Self.logger(.text)
        logger.info("tick")
        let stamp = String(lines.withLockedValue { $0 }[0].prefix(24))
        #expect(stamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil)
        let parsed = try Date(stamp, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
        #expect(parsed.timeIntervalSince(before) > -0.002 && parsed.timeIntervalSinceNow <= 0.001)
    }
}
