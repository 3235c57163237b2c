import Foundation

/// The second signal of the crisis check, which makes the decision: a multinomial logistic regression over
/// ``CrisisFeatures`` (the rule reader's findings and the words), trained by ``CrisisModelTrainer`` on the
/// labelled sets under `evals/train/` and shipped as text in `CrisisModelWeights.swift`.
///
/// Linear, so every answer can be explained: a feature's contribution to a kind is its weight for that kind
/// minus its weight for "none" (``CrisisAssessment/evidence``).
public struct CrisisModel: Sendable {
    /// "none" first, then the kinds.
    static let classes: [CrisisKind?] = [nil] + CrisisKind.allCases
    /// Version 2: the word and letter features are scaled to unit length (``CrisisFeatures``). Version 3: weights
    /// are written as whole ten-thousandths (`-111` for −0.0111), the same values in a third less text.
    static let header = "hearth-crisis-model 3"
    static let classesLine = "classes " + classes.map { $0?.rawValue ?? "none" }.joined(separator: " ")

    /// Each feature's row in ``table``.
    private let rows: [String: Int]
    /// The weights: per row, one per class in ``classes`` order. One flat array, so scoring a feature is one
    /// dictionary lookup and no array to retain and release (a long message has a thousand features).
    private let table: [Double]
    /// The crisis probability at which a message is a crisis.
    public let threshold: Double
    /// The same when the rules found no cue or role: words alone are weaker evidence than a cue read in context.
    public let wordsOnlyThreshold: Double

    public var featureCount: Int { rows.count }

    struct FormatError: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "crisis model line \(line): \(reason)" }
    }

    /// The model `hearth train crisis` wrote into the binary.
    public static let shipped: CrisisModel = {
        do {
            return try CrisisModel(text: CrisisModelWeights.text)
        } catch {
            fatalError("the shipped crisis model does not parse: \(error)")
        }
    }()

    init(weights: [String: [Double]], threshold: Double, wordsOnlyThreshold: Double) {
        var rows = [String: Int](minimumCapacity: weights.count)
        var table: [Double] = []
        table.reserveCapacity(weights.count * Self.classes.count)
        for name in weights.keys.sorted() {
            precondition(weights[name]!.count == Self.classes.count, "a weight per class for \(name)")
            rows[name] = rows.count
            table += weights[name]!
        }
        self.rows = rows
        self.table = table
        self.threshold = threshold
        self.wordsOnlyThreshold = wordsOnlyThreshold
    }

    /// Reads the text ``text`` writes: a header, `classes …`, `threshold …`, `threshold-words-only …`, then one
    /// line per feature: the name, a tab, a weight per class in ten-thousandths.
    public init(text: String) throws {
        var weights: [String: [Double]] = [:]
        var threshold: Double?
        var wordsOnlyThreshold: Double?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first.map(String.init) == Self.header else { throw FormatError(line: 1, reason: "expected \"\(Self.header)\"") }
        for (offset, line) in lines.enumerated().dropFirst() {
            if line.hasPrefix("classes ") {
                guard line == Self.classesLine else { throw FormatError(line: offset + 1, reason: "expected \(Self.classesLine)") }
            } else if line.hasPrefix("threshold ") {
                threshold = Double(line.dropFirst(10))
            } else if line.hasPrefix("threshold-words-only ") {
                wordsOnlyThreshold = Double(line.dropFirst(21))
            } else {
                let parts = line.split(separator: "\t")
                let values = parts.count == 2 ? parts[1].split(separator: " ").compactMap { Int($0).map { Double($0) / Self.weightScale } } : []
                guard values.count == Self.classes.count else { throw FormatError(line: offset + 1, reason: "expected a name, a tab and \(Self.classes.count) weights") }
                weights[String(parts[0])] = values
            }
        }
        guard let threshold, let wordsOnlyThreshold, (0...1).contains(threshold), (0...1).contains(wordsOnlyThreshold) else {
            throw FormatError(line: 0, reason: "no threshold and threshold-words-only between 0 and 1")
        }
        self.init(weights: weights, threshold: threshold, wordsOnlyThreshold: wordsOnlyThreshold)
    }

    /// Weights are stored to 4 decimals, as whole multiples of 1/10 000.
    static let weightScale = 10_000.0

    /// The model as text: features sorted by name, weights in ten-thousandths, so a retrained model diffs by line.
    public var text: String {
        var lines = [Self.header, Self.classesLine, "threshold \(threshold)", "threshold-words-only \(wordsOnlyThreshold)"]
        for (name, row) in rows.sorted(by: { $0.value < $1.value }) {
            lines.append(name + "\t" + table[row * Self.classes.count..<(row + 1) * Self.classes.count].map { String(Int(($0 * Self.weightScale).rounded())) }.joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Swift file the shipped model lives in (`CrisisModelWeights.swift`): the text as one raw literal, which
    /// the compiler reads as fast as a resource and which needs no bundle beside the binary.
    public var swiftSource: String {
        "// Written by `hearth train crisis` (docs/safety.md): the shipped crisis model. Do not edit by hand.\n"
            + "enum CrisisModelWeights {\n    static let text = #\"\"\"\n" + text + "\"\"\"#\n}\n"
    }

    /// Class probabilities for a message's features (softmax of the summed weights).
    func probabilities(_ features: [String: Double]) -> [Double] {
        let width = Self.classes.count
        var logits = [Double](repeating: 0, count: width)
        for (name, value) in features {
            guard let row = rows[name] else { continue }
            for index in 0..<width { logits[index] += table[row * width + index] * value }
        }
        return Self.softmax(logits)
    }

    /// The features that pushed hardest from "none" towards `kind`, strongest first.
    func evidence(_ features: [String: Double], for kind: CrisisKind, limit: Int = 5) -> [String] {
        guard let column = Self.classes.firstIndex(of: kind) else { return [] }
        return features.compactMap { name, value -> (String, Double)? in
            guard let row = rows[name] else { return nil }
            let start = row * Self.classes.count
            return (name, (table[start + column] - table[start]) * value)
        }
        .filter { $0.1 > 0 }
        .sorted { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        .prefix(limit)
        .map { $0.0 + "=" + Self.rounded($0.1) }
    }

    static func softmax(_ logits: [Double]) -> [Double] {
        let top = logits.max() ?? 0
        let exps = logits.map { exp($0 - top) }
        let total = exps.reduce(0, +)
        return exps.map { $0 / total }
    }

    static func rounded(_ value: Double) -> String {
        let scaled = (value * weightScale).rounded() / weightScale
        return scaled == 0 ? "0" : String(scaled)
    }
}
