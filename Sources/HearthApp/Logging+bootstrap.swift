import HearthPlatform
import Logging

extension Config {
    /// Installs the process-wide log handler (JSON lines in production, readable text in development).
    public func bootstrapLogging() {
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
