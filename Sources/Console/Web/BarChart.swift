import Foundation

/// A bar chart drawn on the server as inline SVG, for the console's pages: no scripts, a `<title>` on every bar
/// for pointers and screen readers, and the same numbers in a table beside it. Coordinates are in the SVG's own
/// units; the stylesheet scales it to the page's width.
struct BarChart {
    struct Bar {
        let x: String
        let y: String
        let width: String
        let height: String
        /// "2026-11-20: $1.25".
        let title: String
    }

    static let width = 640.0
    static let height = 160.0
    /// Room below the bars for the first and last labels.
    static let axis = 20.0

    /// What the chart shows, for `aria-label`.
    let label: String
    let bars: [Bar]
    /// "Cost per day…; largest $1.25." or, when every value is zero, "…: nothing yet."
    let caption: String
    let firstLabel: String
    let lastLabel: String
    let viewBox = "0 0 \(Int(width)) \(Int(height + axis))"
    let baseline = String(Int(height))
    let labelY = String(Int(height + axis - 4))
    let rightEdge = String(Int(width))

    /// `points`: oldest first, each with its label and how the value reads ("$1.25").
    init(label: String, points: [(label: String, value: Double, reads: String)]) {
        self.label = label
        let largest = points.map(\.value).max() ?? 0
        let slot = Self.width / Double(max(points.count, 1))
        bars = points.enumerated().map { index, point in
            let height = largest > 0 ? (point.value / largest * (Self.height - 12)).rounded() : 0
            return Bar(x: Self.format(Double(index) * slot + slot * 0.1), y: Self.format(Self.height - height),
                       width: Self.format(slot * 0.8), height: Self.format(height), title: "\(point.label): \(point.reads)")
        }
        caption = largest > 0 ? "\(label); largest \(points.first { $0.value == largest }?.reads ?? "")." : "\(label): nothing yet."
        firstLabel = points.first?.label ?? ""
        lastLabel = points.last?.label ?? ""
    }

    static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
