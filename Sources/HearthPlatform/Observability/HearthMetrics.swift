import Foundation
import Metrics
import Prometheus

/// The process-wide Prometheus registry behind `/metrics`.
///
/// swift-metrics can be bootstrapped once per process, so every caller (the server and every test) goes
/// through ``bootstrap()``, which installs the factory the first time and is a no-op after.
public enum HearthMetrics {
    public static let registry = PrometheusCollectorRegistry()

    private static let installed: Void = {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }()

    public static func bootstrap() { _ = installed }

    /// The text exposition format: the registry, then the process metrics read at this moment.
    public static func render() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self) + ProcessMetrics.render()
    }
}
