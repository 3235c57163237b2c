import HearthPlatform
import Foundation

/// What a chat run measured, as a table for people and a final `key=value` line for scripts.
public struct ChatReport: Sendable {
    public struct Phase: Sendable {
        public let measured: LatencyRecorder.Snapshot
        public let elapsed: Duration

        public var turnsPerSecond: Double {
            elapsed.seconds > 0 ? Double(measured.completed) / elapsed.seconds : 0
        }
    }

    public let shape: LoadShape
    public let hearth: Phase
    public let direct: Phase?
    /// Hearth's CPU time over the measured part (from its /metrics).
    public let serverCPUSeconds: Double?
    public let peakResidentBytes: Int?

    /// Server CPU per completed turn, in milliseconds.
    public var cpuPerTurnMilliseconds: Double? {
        guard let serverCPUSeconds, hearth.measured.completed > 0 else { return nil }
        return serverCPUSeconds * 1000 / Double(hearth.measured.completed)
    }

    static let percentiles: [Double] = [50, 90, 99, 99.9]

    public var text: String {
        var lines = ["users=\(shape.users) think=\(Self.format(shape.thinkTime)) turns completed: hearth \(hearth.measured.completed)"
            + (direct.map { ", direct \($0.measured.completed)" } ?? "")]
        lines.append("                    turns/s   ttft p50    p90      p99      p99.9    max    | total p50    p99")
        if let direct { lines.append(row("direct (mock)", direct)) }
        lines.append(row("hearth", hearth))
        if let direct {
            let ttft = Self.percentiles.map { hearth.measured.timeToFirstToken.milliseconds(at: $0) - direct.measured.timeToFirstToken.milliseconds(at: $0) }
            let total = [50.0, 99].map { hearth.measured.total.milliseconds(at: $0) - direct.measured.total.milliseconds(at: $0) }
            lines.append("server-added                   " + ttft.map(Self.ms).joined(separator: " ") + "          | " + total.map(Self.ms).joined(separator: " "))
        }
        if let cpu = cpuPerTurnMilliseconds, let seconds = serverCPUSeconds {
            lines.append(String(format: "server CPU per turn: %.3f ms (%.2f s over %d turns)", cpu, seconds, hearth.measured.completed))
        }
        if let peak = peakResidentBytes {
            lines.append("server RSS peak: \(peak / (1 << 20)) MiB; open streams peak: \(hearth.measured.peakOpenStreams)")
        }
        let errors = (direct.map { [("direct", $0.measured.errors)] } ?? []) + [("hearth", hearth.measured.errors)]
        for (name, kinds) in errors where !kinds.isEmpty {
            lines.append("errors (\(name)): " + kinds.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        lines.append(keyValues.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }

    /// The last line of the output, for `scripts/bench`.
    public var keyValues: [(String, String)] {
        let measured = hearth.measured
        var pairs: [(String, String)] = [
            ("users", "\(shape.users)"),
            ("turns", "\(measured.completed)"),
            ("errors", "\(measured.errorCount + (direct?.measured.errorCount ?? 0))"),
            ("turns_per_s", String(format: "%.1f", hearth.turnsPerSecond)),
            ("ttft_p50_ms", Self.plain(measured.timeToFirstToken.milliseconds(at: 50))),
            ("ttft_p99_ms", Self.plain(measured.timeToFirstToken.milliseconds(at: 99))),
            ("total_p50_ms", Self.plain(measured.total.milliseconds(at: 50))),
            ("total_p99_ms", Self.plain(measured.total.milliseconds(at: 99))),
            ("open_streams_peak", "\(measured.peakOpenStreams)"),
        ]
        if let direct {
            pairs += [
                ("direct_ttft_p50_ms", Self.plain(direct.measured.timeToFirstToken.milliseconds(at: 50))),
                ("direct_ttft_p99_ms", Self.plain(direct.measured.timeToFirstToken.milliseconds(at: 99))),
                ("added_ttft_p50_ms", Self.plain(measured.timeToFirstToken.milliseconds(at: 50) - direct.measured.timeToFirstToken.milliseconds(at: 50))),
                ("added_ttft_p99_ms", Self.plain(measured.timeToFirstToken.milliseconds(at: 99) - direct.measured.timeToFirstToken.milliseconds(at: 99))),
            ]
        }
        if let cpu = cpuPerTurnMilliseconds { pairs.append(("cpu_per_turn_ms", Self.plain(cpu))) }
        if let peak = peakResidentBytes { pairs.append(("rss_peak_mib", "\(peak / (1 << 20))")) }
        return pairs
    }

    private func row(_ name: String, _ phase: Phase) -> String {
        name.padding(toLength: 18, withPad: " ", startingAt: 0)
            + String(format: "%8.1f   ", phase.turnsPerSecond)
            + Self.percentiles.map { Self.ms(phase.measured.timeToFirstToken.milliseconds(at: $0)) }.joined(separator: " ")
            + " " + Self.ms(phase.measured.timeToFirstToken.maxMilliseconds)
            + " | " + [50.0, 99].map { Self.ms(phase.measured.total.milliseconds(at: $0)) }.joined(separator: " ")
    }

    static func ms(_ value: Double) -> String { String(format: "%7.3fms", value) }
    static func plain(_ value: Double) -> String { String(format: "%.3f", value) }
    static func format(_ duration: Duration) -> String {
        String(format: "%.0fms", duration.seconds * 1000)
    }
}
