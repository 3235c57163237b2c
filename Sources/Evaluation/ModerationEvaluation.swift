import Safety

/// `hearth eval moderation FILE`: the persona screening against labelled personas
/// (`{"name", "domain", "tone", "methodology", "personality", "expected": "approve"|"reject"}`, optionally
/// `description`, `greeting`, `examples` and a `reason` naming the concern a reject shows).
public struct ModerationEvaluation {
    struct Example: Decodable {
        enum Expected: String, Decodable {
            case approve
            case reject
        }

        let name: String
        let domain: String
        let tone: String
        let methodology: String
        let personality: String
        let description: String?
        let greeting: String?
        let examples: [String]?
        let expected: Expected
        let reason: String?

        /// The concern a reject's `reason` names.
        var concern: ModerationConcern? { reason.flatMap(ModerationConcern.init(rawValue:)) }

        /// The fields as the screening reads a persona's (Personas' PersonaContent.fields).
        var fields: [(name: String, text: String)] {
            [("name", name), ("tone", tone), ("methodology", methodology), ("personality", personality)]
                + [("description", description), ("greeting", greeting)].compactMap { field, text in text.map { (field, $0) } }
                + (examples ?? []).map { ("examples", $0) }
        }
    }

    public init() {}

    /// The report, line by line; the last line is `key=value` pairs.
    public func run(file path: String, showErrors: Bool = false) throws -> [String] {
        let examples = try LabelledFile.read(Example.self, from: path)
        let screening = PersonaScreening()
        var timings = Timings()
        var caught = 0, falseRejects = 0
        var perReason: [String: (found: Int, total: Int)] = [:]
        var errors: [String] = []
        for example in examples {
            let result = timings.measure { screening.screen(example.fields) }
            let flagged = result.verdict == .flag
            switch example.expected {
            case .reject:
                caught += flagged ? 1 : 0
                let reason = example.reason ?? "unlabelled"
                perReason[reason, default: (0, 0)].found += flagged ? 1 : 0
                perReason[reason, default: (0, 0)].total += 1
                if !flagged { errors.append("missed \(reason): \(example.name) | \(example.personality.prefix(120))") }
            case .approve:
                if flagged {
                    falseRejects += 1
                    errors.append("false flag \(result.reasons.map(\.description).joined(separator: ", ")): \(example.name)")
                }
            }
        }
        let rejects = examples.filter { $0.expected == .reject }.count
        let approves = examples.count - rejects
        let recall = Format.fraction(caught, rejects)
        let falseRejectRate = Format.fraction(falseRejects, approves)
        var lines = [
            "moderation: \(examples.count) personas, \(rejects) to reject, \(approves) to approve",
            "reject recall      \(Format.ratio(recall))  (\(caught)/\(rejects) bad personas flagged)",
            "false-reject rate  \(Format.ratio(falseRejectRate))  (\(falseRejects)/\(approves) good personas flagged)",
            "recall by reason:",
        ]
        for (reason, counts) in perReason.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(Format.padded(reason, 16)) \(Format.ratio(Format.fraction(counts.found, counts.total)))  \(counts.found)/\(counts.total)")
        }
        if showErrors { lines += errors }
        lines.append("reject_recall=\(Format.ratio(recall)) false_reject_rate=\(Format.ratio(falseRejectRate)) n=\(examples.count) \(timings.summary)")
        return lines
    }
}
