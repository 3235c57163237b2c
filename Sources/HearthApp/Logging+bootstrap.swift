#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import HearthPlatform
import Logging

extension Config {
    /// Installs the process-wide log handler (JSON lines in production, readable text in development).
    public func bootstrapLogging() {
        // Log lines go to stdout with write(2), around stdio's buffer; made line-buffered, what the commands print
        // (`hearth dev`'s banner) leaves when printed, not when the process exits, and keeps its place among them.
        setvbuf(stdout, nil, _IOLBF, 0)
        let format = logFormat
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, format: format)
            handler.logLevel = level
            return handler
        }
    }
}

extension Config {
    /// What every `hearth` subcommand does first: read the environment and install the log handler.
    public static func loadForCommand() throws -> Config {
        let config = try Config.fromEnvironment()
        config.bootstrapLogging()
        return config
    }
}
