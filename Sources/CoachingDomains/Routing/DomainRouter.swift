import Foundation

/// Classifies a message into one of a tenant's coaching domains, invisibly (FR6), in microseconds.
///
/// A multinomial naive Bayes model built when the domains are loaded, from what operators write in each
/// domain's file: the router samples, the weighted keywords (a keyword of weight w counts as w × 5 sightings)
/// and the description and example messages. No training step and no model file, so an eighth domain is just
/// another definition. Words no domain has seen say nothing and are skipped.
///
/// Short follow-ups ("yeah, exactly") carry no evidence of their own: when the message has little, the
/// person's previous messages in the thread lend theirs at half weight. Below ``confidenceThreshold`` the
/// thread keeps the domain it has.
public struct DomainRouter: Sendable {
    public struct Route: Sendable, Equatable {
        public init(domain: String?, confidence: Double, routed: Bool) {
            self.domain = domain
            self.confidence = confidence
            self.routed = routed
        }

        /// The domain chosen, `nil` when there is nothing to go on and no current domain.
        public let domain: String?
        /// The model's probability for its best domain (0 when it had no evidence).
        public let confidence: Double
        /// The best domain was confident enough to be chosen (otherwise the current one was kept).
        public let routed: Bool
    }

    public let keys: [String]
    /// For each known feature, its log probability in each domain (in `keys` order).
    let logLikelihoods: [String: [Double]]
    public static let confidenceThreshold = 0.55

    /// Messages with fewer known features than this borrow from the recent ones.
    static let shortMessage = 3
    /// Chosen on the development set (evals/routing.jsonl), where accuracy is flat around these values.
    static let keywordSightings = 5.0
    static let smoothing = 1.0

    public init(_ definitions: [DomainDefinition]) {
        keys = definitions.map(\.key)
        var counts: [String: [Double]] = [:]
        var totals = [Double](repeating: 0, count: definitions.count)
        func add(_ feature: String, _ index: Int, _ amount: Double) {
            counts[feature, default: [Double](repeating: 0, count: definitions.count)][index] += amount
            totals[index] += amount
        }
        for (index, definition) in definitions.enumerated() {
            let texts = definition.router.samples + [definition.description] + definition.examples.map(\.user)
            for text in texts {
                for feature in RouterText.features(text, triples: false) { add(feature, index, 1) }
            }
            for (weight, keywords) in definition.router.keywords {
                for keyword in keywords {
                    let phrase = RouterText.phrase(keyword)
                    if !phrase.isEmpty { add(phrase, index, Double(weight) * Self.keywordSightings) }
                }
            }
        }
        let vocabulary = Double(counts.count)
        logLikelihoods = counts.mapValues { row in
            row.indices.map { index in
                let total = totals[index] + Self.smoothing * vocabulary
                return log((row[index] + Self.smoothing) / total)
            }
        }
    }

    /// Each domain's probability for `message`, with `recent` (the person's earlier messages, newest last)
    /// lending evidence when the message is short on it. Sums to 1; all zero when nothing is known.
    public func probabilities(_ message: String, recent: [String] = []) -> [Double] {
        var scores = [Double](repeating: 0, count: keys.count)
        let known = accumulate(RouterText.features(message, triples: true), weight: 1, into: &scores)
        var evidence = known
        if known < Self.shortMessage {
            for (age, earlier) in recent.reversed().prefix(2).enumerated() {
                evidence += accumulate(RouterText.features(earlier, triples: true), weight: age == 0 ? 0.5 : 0.25, into: &scores)
            }
        }
        guard evidence > 0, let best = scores.max() else { return [Double](repeating: 0, count: keys.count) }
        let exponentials = scores.map { exp($0 - best) }
        let sum = exponentials.reduce(0, +)
        return exponentials.map { $0 / sum }
    }

    /// The domain for `message` in a thread currently in `current`.
    public func route(_ message: String, recent: [String] = [], current: String?) -> Route {
        let probabilities = probabilities(message, recent: recent)
        guard let best = probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }), probabilities[best] > 0 else {
            return Route(domain: current, confidence: 0, routed: false)
        }
        let confidence = probabilities[best]
        if confidence >= Self.confidenceThreshold || current == nil {
            return Route(domain: keys[best], confidence: confidence, routed: true)
        }
        return Route(domain: current, confidence: confidence, routed: false)
    }

    /// Adds the features' log likelihoods to `scores`; returns how many were known.
    private func accumulate(_ features: [String], weight: Double, into scores: inout [Double]) -> Int {
        var known = 0
        for feature in features {
            guard let row = logLikelihoods[feature] else { continue }
            known += 1
            for index in scores.indices { scores[index] += weight * row[index] }
        }
        return known
    }
}
