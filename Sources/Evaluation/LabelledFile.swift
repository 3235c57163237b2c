import Foundation

/// A JSONL file of labelled examples: one JSON object a line; blank lines skipped; a line that does not decode
/// is an error naming its line number.
enum LabelledFile {
    struct LineError: Error, CustomStringConvertible {
        let path: String
        let line: Int
        let reason: String
        var description: String { "\(path):\(line): \(reason)" }
    }

    /// `problem` names what is wrong with an example that decodes but cannot be used (a label the classifier
    /// does not know), reported with its line like a decoding error.
    static func read<Example: Decodable>(_ type: Example.Type, from path: String,
                                         problem: (Example) -> String? = { _ in nil }) throws -> [Example] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let decoder = JSONDecoder()
        var examples: [Example] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let example: Example
            do {
                example = try decoder.decode(Example.self, from: Data(trimmed.utf8))
            } catch let DecodingError.keyNotFound(key, _) {
                throw LineError(path: path, line: index + 1, reason: "missing \"\(key.stringValue)\"")
            } catch let DecodingError.typeMismatch(type, context) where !context.codingPath.isEmpty {
                throw LineError(path: path, line: index + 1, reason: "\"\(Self.field(context))\" must be \(Self.name(of: type))")
            } catch let DecodingError.valueNotFound(type, context) where !context.codingPath.isEmpty {
                throw LineError(path: path, line: index + 1, reason: "\"\(Self.field(context))\" must be \(Self.name(of: type)), not null")
            } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
                throw LineError(path: path, line: index + 1, reason: "\"\(Self.field(context))\": \(context.debugDescription)")
            } catch {
                throw LineError(path: path, line: index + 1, reason: "not a JSON object")
            }
            if let reason = problem(example) { throw LineError(path: path, line: index + 1, reason: reason) }
            examples.append(example)
        }
        guard !examples.isEmpty else { throw LineError(path: path, line: 0, reason: "no examples") }
        return examples
    }

    private static func field(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    /// "a string", "true or false", "a number": what a line's author should write.
    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        default: "a \(type)"
        }
    }
}

/// How long each classification took, for the median and p99 the reports end with.
struct Timings {
    private(set) var microseconds: [Double] = []

    mutating func measure<T>(_ body: () -> T) -> T {
        let start = ContinuousClock.now
        let result = body()
        let elapsed = ContinuousClock.now - start
        microseconds.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
        return result
    }

    /// `p50_us=… p99_us=…`, nearest rank, rounded up to whole microseconds.
    var summary: String {
        "p50_us=\(percentile(0.50)) p99_us=\(percentile(0.99))"
    }

    private func percentile(_ fraction: Double) -> Int {
        guard !microseconds.isEmpty else { return 0 }
        let sorted = microseconds.sorted()
        return Int(sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))].rounded(.up))
    }
}

/// Formatting shared by the reports.
enum Format {
    static func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
    static func fraction(_ part: Int, _ whole: Int) -> Double { whole == 0 ? 0 : Double(part) / Double(whole) }
    static func padded(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
}
