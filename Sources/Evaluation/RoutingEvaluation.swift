import CoachingDomains

/// `hearth eval routing FILE`: the domain router, built from a directory of domain files exactly as a tenant's
/// is, against labelled messages (`{"text": "...", "domain": "career"}`). Each message is routed on its own, as
/// the first message of a thread with no domain yet.
public struct RoutingEvaluation {
    struct Example: Decodable {
        let text: String
        let domain: String
    }

    public init() {}

    /// The report, line by line; the last line is `key=value` pairs.
    public func run(file path: String, domains directory: String, showErrors: Bool = false) throws -> [String] {
        let definitions = try DomainFiles.load(directory).filter(\.enabled)
        let router = DomainRouter(definitions)
        let keys = router.keys
        let examples = try LabelledFile.read(Example.self, from: path) { example in
            keys.contains(example.domain) ? nil : "domain '\(example.domain)' is not one of \(keys.joined(separator: ", "))"
        }
        var timings = Timings()
        // confusion[expected][predicted]; the extra column is "none" (nothing known in the message).
        var confusion = [String: [String: Int]]()
        var correct = 0
        var errors: [String] = []
        for example in examples {
            let route = timings.measure { router.route(example.text, current: nil) }
            let predicted = route.domain ?? "none"
            confusion[example.domain, default: [:]][predicted, default: 0] += 1
            if predicted == example.domain {
                correct += 1
            } else {
                errors.append("\(example.domain) → \(predicted) (\(Format.ratio(route.confidence))): \(example.text)")
            }
        }
        var lines = ["routing: \(examples.count) messages, \(keys.count) domains (\(directory))",
                     "accuracy   \(Format.ratio(Format.fraction(correct, examples.count)))  (\(correct)/\(examples.count))",
                     "domain           precision  recall  n"]
        for key in keys {
            let truePositives = confusion[key]?[key] ?? 0
            let predicted = confusion.values.reduce(0) { $0 + ($1[key] ?? 0) }
            let actual = confusion[key]?.values.reduce(0, +) ?? 0
            lines.append("  \(Format.padded(key, 15)) \(Format.ratio(Format.fraction(truePositives, predicted)))       " +
                         "\(Format.ratio(Format.fraction(truePositives, actual)))    \(actual)")
        }
        let columns = keys + ["none"]
        lines.append("confusion (rows: labelled, columns: routed)")
        lines.append(Format.padded("", 15) + columns.map { Format.padded(String($0.prefix(6)), 7) }.joined())
        for key in keys {
            lines.append(Format.padded("  " + key, 15) + columns.map { Format.padded(String(confusion[key]?[$0] ?? 0), 7) }.joined())
        }
        if showErrors { lines += errors }
        lines.append("accuracy=\(Format.ratio(Format.fraction(correct, examples.count))) n=\(examples.count) \(timings.summary)")
        return lines
    }
}
