import Safety

/// `hearth eval crisis FILE`: the crisis classifier against labelled messages
/// (`{"text": "...", "crisis": true, "kind": "suicidal"}`).
public struct CrisisEvaluation {
    /// A labelled line; `hearth train crisis` reads the same.
    /// One labelled line. Fields it does not use (a `note`) are ignored; `kind` may be absent, null or `"none"` on a
    /// line that is not a crisis.
    struct Example: Decodable {
        let text: String
        let crisis: Bool
        let kind: CrisisKind?

        enum CodingKeys: String, CodingKey { case text, crisis, kind }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            crisis = try container.decode(Bool.self, forKey: .crisis)
            let name = try container.decodeIfPresent(String.self, forKey: .kind)
            if let name, name != "none" || crisis {
                guard let known = CrisisKind(rawValue: name) else {
                    let kinds = CrisisKind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw DecodingError.dataCorruptedError(
                        forKey: .kind, in: container,
                        debugDescription: crisis ? "\"\(name)\" is not one of \(kinds)" : "\"\(name)\" is not one of \(kinds) or none")
                }
                kind = known
            } else {
                kind = nil
            }
        }
    }

    public init() {}

    /// The report, line by line; the last line is `key=value` pairs.
    public func run(file path: String, showErrors: Bool = false, model: CrisisModel = .shipped) throws -> [String] {
        let examples = try LabelledFile.read(Example.self, from: path)
        let detector = CrisisDetector(model: model)
        var timings = Timings()
        var truePositives = 0, falsePositives = 0, kindCorrect = 0
        var perKind: [CrisisKind: (found: Int, total: Int)] = [:]
        var errors: [String] = []
        for example in examples {
            // Read as a message opening its conversation: the sets have none.
            let assessment = timings.measure { detector.assess(example.text, conversation: []) }
            if example.crisis {
                if assessment.isCrisis {
                    truePositives += 1
                    if assessment.kind == example.kind { kindCorrect += 1 }
                }
                if let kind = example.kind {
                    perKind[kind, default: (0, 0)].found += assessment.isCrisis ? 1 : 0
                    perKind[kind, default: (0, 0)].total += 1
                }
                if !assessment.isCrisis { errors.append("missed \(example.kind?.rawValue ?? "crisis"): \(example.text)  \(assessment.signals) \(assessment.evidence)") }
            } else if assessment.isCrisis {
                falsePositives += 1
                errors.append("false alarm \(assessment.kind?.rawValue ?? ""): \(example.text)  \(assessment.signals) \(assessment.evidence)")
            }
        }
        let positives = examples.filter(\.crisis).count
        let negatives = examples.count - positives
        let recall = Format.fraction(truePositives, positives)
        let precision = Format.fraction(truePositives, truePositives + falsePositives)
        let fpr = Format.fraction(falsePositives, negatives)
        var lines = [
            "crisis: \(examples.count) messages, \(positives) crisis, \(negatives) not",
            "recall     \(Format.ratio(recall))  (\(truePositives)/\(positives) crisis messages detected)",
            "precision  \(Format.ratio(precision))",
            "fpr        \(Format.ratio(fpr))  (\(falsePositives)/\(negatives) other messages flagged)",
            "kind       \(Format.ratio(Format.fraction(kindCorrect, truePositives)))  (detected crisis given the labelled kind)",
            "recall by kind:",
        ]
        for kind in CrisisKind.allCases {
            guard let counts = perKind[kind] else { continue }
            lines.append("  \(Format.padded(kind.rawValue, 16)) \(Format.ratio(Format.fraction(counts.found, counts.total)))  \(counts.found)/\(counts.total)")
        }
        if showErrors { lines += errors }
        lines.append("recall=\(Format.ratio(recall)) precision=\(Format.ratio(precision)) fpr=\(Format.ratio(fpr)) n=\(examples.count) \(timings.summary)")
        return lines
    }
}
