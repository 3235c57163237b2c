#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

#if os(Linux)
private let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
private let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

/// The standard Prometheus process metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`, …),
/// read at scrape time. `hearth-load` divides the CPU delta over a run by its turns, and samples memory
/// while thousands of streams are open, so these are what the performance targets are measured with.
public enum ProcessMetrics {
    public struct Sample: Sendable, Equatable {
        /// User plus system CPU time of the whole process, in seconds.
        public var cpuSeconds: Double
        /// Resident set size now, in bytes (nil where /proc is missing).
        public var residentBytes: Int?
        /// Peak resident set size, in bytes.
        public var maxResidentBytes: Int
        public var openFileDescriptors: Int?
    }

    public static func sample() -> Sample {
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        #if os(Linux)
        let maxResident = Int(usage.ru_maxrss) * 1024 // kilobytes on Linux
        #else
        let maxResident = Int(usage.ru_maxrss)
        #endif
        return Sample(cpuSeconds: cpu, residentBytes: residentBytes(), maxResidentBytes: maxResident, openFileDescriptors: openFiles())
    }

    /// The text exposition of ``sample()``.
    public static func render() -> String {
        let now = sample()
        var text = """
        # HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
        # TYPE process_cpu_seconds_total counter
        process_cpu_seconds_total \(now.cpuSeconds)
        # HELP process_max_resident_memory_bytes Peak resident memory size in bytes.
        # TYPE process_max_resident_memory_bytes gauge
        process_max_resident_memory_bytes \(now.maxResidentBytes)

        """
        if let resident = now.residentBytes {
            text += """
            # HELP process_resident_memory_bytes Resident memory size in bytes.
            # TYPE process_resident_memory_bytes gauge
            process_resident_memory_bytes \(resident)

            """
        }
        if let files = now.openFileDescriptors {
            text += """
            # HELP process_open_fds Number of open file descriptors.
            # TYPE process_open_fds gauge
            process_open_fds \(files)

            """
        }
        return text
    }

    /// Second field of /proc/self/statm (pages).
    private static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func openFiles() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map(\.count)
    }
}
