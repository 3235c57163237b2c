import HearthPlatform
import Histogram
import Synchronization

/// Percentiles of one latency, in an HDR histogram at microsecond resolution (three significant digits),
/// so a p99.9 over a million turns costs the same few kilobytes as over ten.
public struct Latencies: Sendable {
    var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)

    public init() {}

    mutating func record(_ duration: Duration) {
        _ = histogram.record(UInt64(max(0, (duration.seconds * 1_000_000).rounded())))
    }

    public var count: Int { Int(histogram.totalCount) }

    /// The value at `percentile` (0–100), in milliseconds.
    public func milliseconds(at percentile: Double) -> Double {
        count == 0 ? 0 : Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    public var maxMilliseconds: Double { count == 0 ? 0 : Double(histogram.max) / 1000 }
}

/// What one run of a scenario measured. Shared by every simulated user, hence the lock.
public final class LatencyRecorder: Sendable {
    public struct Snapshot: Sendable {
        public var timeToFirstToken = Latencies()
        public var total = Latencies()
        public var completed = 0
        /// Failures by kind: `http_429`, `event_providers_unavailable`, `timeout`, `truncated`, …
        public var errors: [String: Int] = [:]
        public var openStreams = 0
        public var peakOpenStreams = 0

        public var errorCount: Int { errors.values.reduce(0, +) }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public var snapshot: Snapshot { state.withLock { $0 } }

    func completed(timeToFirstToken: Duration, total: Duration) {
        state.withLock {
            $0.timeToFirstToken.record(timeToFirstToken)
            $0.total.record(total)
            $0.completed += 1
        }
    }

    func failed(_ kind: String) {
        state.withLock { $0.errors[kind, default: 0] += 1 }
    }

    func streamOpened() {
        state.withLock {
            $0.openStreams += 1
            $0.peakOpenStreams = max($0.peakOpenStreams, $0.openStreams)
        }
    }

    func streamClosed() {
        state.withLock { $0.openStreams -= 1 }
    }
}
