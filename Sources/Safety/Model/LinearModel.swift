import Foundation

/// A multinomial logistic regression over named sparse features: what both trained classifiers are (the crisis
/// check's ``CrisisModel`` and the persona screening's ``ModerationModel``). Linear, so every answer can be
/// explained: a feature's contribution to a class is its weight for that class minus its weight for the first
/// class (the "nothing wrong" class of both models).
///
/// Stored as text, one line per feature: its name, a tab, a weight per class in whole ten-thousandths, sorted by
/// name so that a retrained model diffs by line.
struct LinearModel: Sendable {
    let classCount: Int
    /// Each feature's row in ``table``.
    private let rows: [String: Int]
    /// The weights: per row, one per class. One flat array, so scoring a feature is one dictionary lookup and no
    /// array to retain and release (a long message has a thousand features).
    private let table: [Double]
    /// ``rows`` again, filed under each name's ``FeatureHash`` (open addressing, at most half full), for scoring
    /// ``HashedFeatures``: no `String` is made or hashed per feature.
    private let hashedRows: [HashedRow]
    private let hashBits: Int

    private struct HashedRow {
        var hash: UInt64 = 0
        /// -1: an empty slot.
        var row: Int32 = -1
    }

    var featureCount: Int { rows.count }

    init(weights: [String: [Double]], classCount: Int) {
        var rows = [String: Int](minimumCapacity: weights.count)
        var table: [Double] = []
        table.reserveCapacity(weights.count * classCount)
        for name in weights.keys.sorted() {
            precondition(weights[name]!.count == classCount, "a weight per class for \(name)")
            rows[name] = rows.count
            table += weights[name]!
        }
        self.classCount = classCount
        self.rows = rows
        self.table = table
        var bits = 4
        while 1 << bits < rows.count * 2 { bits += 1 }
        var slots = [HashedRow](repeating: HashedRow(), count: 1 << bits)
        for (name, row) in rows {
            let hash = FeatureHash.of(name.utf8)
            var slot = FeatureHash.slot(hash, bits: bits)
            while slots[slot].row >= 0 {
                // Two names of one model under one hash would score as each other: refuse the model instead.
                precondition(slots[slot].hash != hash, "two features of the model share a hash: \(name)")
                slot = (slot + 1) & (slots.count - 1)
            }
            slots[slot] = HashedRow(hash: hash, row: Int32(row))
        }
        hashedRows = slots
        hashBits = bits
    }

    /// Weights are stored to 4 decimals, as whole multiples of 1/10 000.
    static let weightScale = 10_000.0

    /// What a model file says about itself: its header line, its classes and its settings (thresholds).
    struct FileFormat: Sendable {
        /// The model's name in errors ("crisis").
        let name: String
        let header: String
        let classes: [String]
        /// Each setting is a `key value` line, read as a number between 0 and 1.
        let settings: [String]

        var classesLine: String { "classes " + classes.joined(separator: " ") }
    }

    struct FormatError: Error, CustomStringConvertible {
        let model: String
        let line: Int
        let reason: String
        var description: String { "\(model) model line \(line): \(reason)" }
    }

    /// Reads a model file: the header, `classes …`, the settings, then one line per feature: its name, a tab, a
    /// weight per class in ten-thousandths.
    static func read(_ text: String, as format: FileFormat) throws -> (LinearModel, settings: [String: Double]) {
        var weights: [String: [Double]] = [:]
        var settings: [String: Double] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        func error(_ line: Int, _ reason: String) -> FormatError { FormatError(model: format.name, line: line, reason: reason) }
        guard lines.first.map(String.init) == format.header else { throw error(1, "expected \"\(format.header)\"") }
        for (offset, line) in lines.enumerated().dropFirst() {
            if line.hasPrefix("classes ") {
                guard line == format.classesLine else { throw error(offset + 1, "expected \(format.classesLine)") }
            } else if let key = format.settings.first(where: { line.hasPrefix($0 + " ") }) {
                settings[key] = Double(line.dropFirst(key.count + 1))
            } else {
                let parts = line.split(separator: "\t")
                let values = parts.count == 2 ? parts[1].split(separator: " ").compactMap { Int($0).map { Double($0) / weightScale } } : []
                guard values.count == format.classes.count else {
                    throw error(offset + 1, "expected a name, a tab and \(format.classes.count) weights")
                }
                weights[String(parts[0])] = values
            }
        }
        guard format.settings.allSatisfy({ settings[$0].map((0...1).contains) == true }) else {
            throw error(0, "no " + format.settings.joined(separator: " and ") + " between 0 and 1")
        }
        return (LinearModel(weights: weights, classCount: format.classes.count), settings)
    }

    /// The model as such a file; features sorted by name.
    func text(as format: FileFormat, settings: [String: Double]) -> String {
        var lines = [format.header, format.classesLine] + format.settings.map { "\($0) \(settings[$0]!)" }
        for (name, row) in rows.sorted(by: { $0.value < $1.value }) {
            lines.append(name + "\t" + table[row * classCount..<(row + 1) * classCount].map { String(Int(($0 * Self.weightScale).rounded())) }
                .joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Swift file a shipped model lives in: the text as one raw literal in an enum, which the compiler reads
    /// as fast as a resource and which needs no bundle beside the binary.
    static func swiftSource(_ text: String, enumName: String, format: FileFormat) -> String {
        "// Written by `hearth train \(format.name)` (docs/safety.md): the shipped \(format.name) model. Do not edit by hand.\n"
            + "enum \(enumName) {\n    static let text = #\"\"\"\n" + text + "\"\"\"#\n}\n"
    }

    /// Class probabilities for a message's features (softmax of the summed weights).
    func probabilities(_ features: [String: Double]) -> [Double] {
        var logits = [Double](repeating: 0, count: classCount)
        for (name, value) in features {
            guard let row = rows[name] else { continue }
            for index in 0..<classCount { logits[index] += table[row * classCount + index] * value }
        }
        return Self.softmax(logits)
    }

    /// The same for features filed by hash (``HashedFeatures``): what the crisis check scores a message with.
    func probabilities(_ features: HashedFeatures) -> [Double] {
        var logits = [Double](repeating: 0, count: classCount)
        let mask = hashedRows.count - 1
        hashedRows.withUnsafeBufferPointer { slots in
            table.withUnsafeBufferPointer { table in
                for index in 0..<features.count {
                    let hash = features.hashes[index]
                    var slot = FeatureHash.slot(hash, bits: hashBits)
                    while slots[slot].row >= 0, slots[slot].hash != hash { slot = (slot + 1) & mask }
                    guard slots[slot].row >= 0 else { continue }
                    let start = Int(slots[slot].row) * classCount
                    let value = features.values[index]
                    for column in 0..<classCount { logits[column] += table[start + column] * value }
                }
            }
        }
        return Self.softmax(logits)
    }

    /// The features that pushed hardest from the first class towards `column`, strongest first, as
    /// `name=contribution`.
    func evidence(_ features: [String: Double], towards column: Int, limit: Int = 5) -> [String] {
        features.compactMap { name, value -> (String, Double)? in
            guard let row = rows[name] else { return nil }
            let start = row * classCount
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

/// How a ``LinearModel`` is fitted; both trained classifiers use the same defaults.
public struct LinearFit: Sendable {
    /// Inverse regularisation strength, as in scikit-learn: larger fits the examples more closely.
    public var inverseRegularisation = 10.0
    /// Features seen in fewer examples than this are dropped: one or two examples' wording teaches nothing general
    /// (with 2 the crisis dev sets scored the same from a third more features).
    public var minimumCount = 3
    public var iterations = 400
    public var learningRate = 0.05

    public init() {}
}

/// Trains a ``LinearModel``: L2-regularised multinomial logistic regression, full-batch Adam, deterministic — the
/// same examples give the same weights.
struct LinearTrainer: Sendable {

    /// Weights per feature for examples given as features and a class index each. Weights too small to change
    /// a probability by more than a rounding error are left out: they only cost size.
    static func train(_ examples: [[String: Double]], labels: [Int], classCount: Int, options: LinearFit) -> LinearModel {
        var counts: [String: Int] = [:]
        for features in examples { for name in features.keys { counts[name, default: 0] += 1 } }
        let names = counts.filter { $0.value >= options.minimumCount }.keys.sorted()
        let column = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let rows = examples.map { features in
            features.compactMap { name, value in column[name].map { ($0, value) } }.sorted { $0.0 < $1.0 }
        }
        let weights = fit(rows: rows, labels: labels, features: names.count, classCount: classCount, bias: column["bias"], options: options)
        var table: [String: [Double]] = [:]
        for (index, name) in names.enumerated() {
            let row = Array(weights[index * classCount..<(index + 1) * classCount])
            if row.contains(where: { abs($0) >= 0.005 }) { table[name] = row }
        }
        return LinearModel(weights: table, classCount: classCount)
    }

    /// Minimises mean cross-entropy + λ/2·‖W‖² (bias unregularised), λ = 1 / (C · examples).
    static func fit(rows: [[(Int, Double)]], labels: [Int], features: Int, classCount classes: Int, bias: Int?, options: LinearFit) -> [Double] {
        let count = Double(rows.count)
        let lambda = 1 / (options.inverseRegularisation * count)
        var weights = [Double](repeating: 0, count: features * classes)
        var firstMoment = weights, secondMoment = weights
        let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-8)
        for step in 1...options.iterations {
            var gradient = [Double](repeating: 0, count: features * classes)
            for (row, label) in zip(rows, labels) {
                var logits = [Double](repeating: 0, count: classes)
                for (feature, value) in row {
                    for k in 0..<classes { logits[k] += weights[feature * classes + k] * value }
                }
                var probabilities = LinearModel.softmax(logits)
                probabilities[label] -= 1
                for (feature, value) in row {
                    for k in 0..<classes { gradient[feature * classes + k] += probabilities[k] * value / count }
                }
            }
            for index in weights.indices {
                if index / classes != bias { gradient[index] += lambda * weights[index] }
                firstMoment[index] = beta1 * firstMoment[index] + (1 - beta1) * gradient[index]
                secondMoment[index] = beta2 * secondMoment[index] + (1 - beta2) * gradient[index] * gradient[index]
                let corrected = firstMoment[index] / (1 - pow(beta1, Double(step)))
                let scale = (secondMoment[index] / (1 - pow(beta2, Double(step)))).squareRoot() + epsilon
                weights[index] -= options.learningRate * corrected / scale
            }
        }
        return weights
    }
}
