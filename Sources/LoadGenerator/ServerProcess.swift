import AsyncHTTPClient
import Synchronization

/// Hearth's own process figures, read from its `/metrics` (process_cpu_seconds_total,
/// process_resident_memory_bytes): CPU per turn and memory under load without needing its pid.
struct ServerProcess: Sendable {
    struct Reading: Sendable {
        var cpuSeconds: Double?
        var residentBytes: Int?
    }

    let client: HTTPClient
    let target: LoadTarget

    func read() async -> Reading {
        do {
            let response = try await client.execute(.init(url: target.url("/metrics")), timeout: .seconds(5))
            let body = String(buffer: try await response.body.collect(upTo: 8 << 20))
            guard response.status == .ok else { return Reading() }
            return Self.parse(body)
        } catch {
            return Reading()
        }
    }

    static func parse(_ exposition: String) -> Reading {
        var reading = Reading()
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "process_cpu_seconds_total": reading.cpuSeconds = Double(parts[1])
            case "process_resident_memory_bytes": reading.residentBytes = Int(parts[1])
            default: break
            }
        }
        return reading
    }

    /// Reads resident memory every `interval` until cancelled, keeping the peak seen.
    func samplePeakMemory(every interval: Duration, into peak: Shared<Int?>) async {
        while !Task.isCancelled {
            if let resident = await read().residentBytes {
                peak.update { $0 = max($0 ?? 0, resident) }
            }
            try? await Task.sleep(for: interval)
        }
    }
}

/// A value several tasks read and write.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value { mutex.withLock { $0 } }

    func update(_ change: (inout Value) -> Void) { mutex.withLock { change(&$0) } }
}
