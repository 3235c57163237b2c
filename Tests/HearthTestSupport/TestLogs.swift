import Foundation
import Logging
import NIOConcurrencyHelpers

/// Loggers for tests: a silent one, and one that keeps every line so a test can inspect what was logged.
public enum TestLogs {
    public static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// Captures everything logged (at trace level), one string per event: level, label, message and metadata.
public final class CapturedLogs: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    public init() {}

    public var logger: Logger {
        var logger = Logger(label: "hearth", factory: { label in
            CapturingHandler(label: label, sink: self)
        })
        logger.logLevel = .trace
        return logger
    }

    public var all: [String] { lines.withLockedValue { $0 } }

    func append(_ line: String) { lines.withLockedValue { $0.append(line) } }

    struct CapturingHandler: LogHandler {
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        let label: String
        let sink: CapturedLogs

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
            sink.append("\(event.level) \(label) \(event.message) \(merged)")
        }
    }
}
