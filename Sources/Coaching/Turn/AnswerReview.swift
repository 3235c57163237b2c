import Foundation
import Safety

/// The turn's plan for an answer: what the message was classified as, and the crisis resources to offer
/// while the thread is in crisis support.
struct Plan: Sendable {
    let classification: TurnClassification
    let resources: [CrisisResource]

    /// `stored`: the tenant's resources for the locale as the send's store read them (`nil` when it has none).
    init(classification: TurnClassification, stored: Data?, locale: String?) {
        self.init(classification: classification,
                  resources: classification.crisisSupport ? TurnSafety.resources(stored: stored, locale: locale) : [])
    }

    init(classification: TurnClassification, resources: [CrisisResource]) {
        self.classification = classification
        self.resources = resources
    }
}

/// ``ResponseReview`` over an answer as it streams: each sentence is read once, when it is complete, and the
/// first one that crosses the line is replaced, with everything after it, by a gentle redirect.
struct AnswerReview {
    /// Why the answer was redirected; `nil` while it is fine.
    private(set) var concern: ResponseReview.Concern?
    /// UTF-8 offset of the first sentence not yet read.
    private var reviewed = 0

    /// Reads the sentences of `text` completed since the last call (all of it when `final`); on a finding,
    /// rewrites `text` and returns true.
    @discardableResult
    mutating func check(_ text: inout String, final: Bool) -> Bool {
        guard concern == nil else { return false }
        let from = text.utf8.index(text.startIndex, offsetBy: reviewed)
        if let finding = ResponseReview.firstFinding(in: text, from: from, final: final) {
            concern = finding.concern
            let kept = text[..<finding.sentenceStart].trimmingCharacters(in: .whitespaces)
            text = (kept.isEmpty ? "" : kept + " ") + ResponseReview.redirect(for: finding.concern)
            return true
        }
        reviewed = text.utf8.distance(from: text.startIndex, to: ResponseReview.reviewedThrough(text, from: from))
        return false
    }
}
