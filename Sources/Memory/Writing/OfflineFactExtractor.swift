import Foundation

/// The fact extractor without a model: the ``ThemeLexicon`` for recurring themes, and a few sentence shapes
/// for the other categories ("I work as …", "I want to …" in a sentence that calls it a goal, "I plan to …",
/// "what matters most to me is …", "I'd rather …", "… helps me", "my manager told me …", "… makes me anxious"). A fact already known (same theme, same slot value, or nearly the same words) is repeated rather
/// than added; a new value for a slot (occupation, name) contradicts the old one.
public struct OfflineFactExtractor: FactExtractor {
    public init() {}

    public func extract(from transcript: Transcript, summary: SessionSummary, known: [FactExtraction.Known]) async throws -> [FactExtraction.Change] {
        var found: [(FactCategory, FactContent)] = []
        for message in transcript.userText {
            for theme in ThemeLexicon.themes(in: message) {
                found.append((.theme, FactContent(text: theme.fact, theme: theme.id)))
            }
            for sentence in Text.sentences(message) {
                let namesAGoal = Self.namesAGoal(sentence)
                for clause in sentence.split(whereSeparator: { ",;:".contains($0) }) {
                    found += Self.shapes(in: String(clause), namesAGoal: namesAGoal)
                }
            }
        }
        var changes: [FactExtraction.Change] = []
        var seen: Set<String> = []
        for (category, content) in found where seen.insert(content.theme ?? content.text.lowercased()).inserted {
            if let match = known.first(where: { Self.same($0, category, content) }) {
                if !changes.contains(.repeated(match.number)) { changes.append(.repeated(match.number)) }
            } else if let slot = content.slot, let old = known.first(where: { $0.content.slot == slot }) {
                changes.append(.contradicted(old.number, category, content))
            } else {
                changes.append(.add(category, content))
            }
        }
        return changes
    }

    static func same(_ known: FactExtraction.Known, _ category: FactCategory, _ content: FactContent) -> Bool {
        if let theme = content.theme { return known.content.theme == theme }
        guard known.category == category else { return false }
        let (a, b) = (Text.keywords(known.content.text), Text.keywords(content.text))
        guard !a.isEmpty, !b.isEmpty else { return known.content.text.lowercased() == content.text.lowercased() }
        return Double(a.intersection(b).count) / Double(a.union(b).count) >= 0.6
    }

    /// A sentence that calls something a goal ("…, that's my main goal"): a plain "I want to …" in it is that goal.
    static func namesAGoal(_ sentence: String) -> Bool {
        let words = Text.words(sentence)
        return zip(words, words.dropFirst()).contains { ["my", "main", "biggest", "real"].contains($0) && ["goal", "goals", "priority"].contains($1) }
    }

    /// One clause's facts, from the shapes below (matched on lowercased words). `namesAGoal`: its sentence calls
    /// something a goal.
    static func shapes(in sentence: String, namesAGoal: Bool = false) -> [(FactCategory, FactContent)] {
        let words = Text.words(sentence)
        let line = " " + words.joined(separator: " ") + " "
        var facts: [(FactCategory, FactContent)] = []
        func rest(after marker: String, limit: Int = 12) -> String? {
            guard let range = line.range(of: " \(marker) ") else { return nil }
            var words: [Substring] = []
            for word in line[range.upperBound...].split(separator: " ").prefix(limit) {
                if Self.clauseBreaks.contains(String(word)) { break }
                words.append(word)
            }
            return words.isEmpty ? nil : words.joined(separator: " ")
        }
        if let job = rest(after: "i work as a", limit: 5) ?? rest(after: "i work as an", limit: 5) ?? rest(after: "i work as", limit: 5) {
            facts.append((.identity, FactContent(text: "Works as \(job)", slot: "occupation")))
        }
        if let name = rest(after: "my name is", limit: 2) {
            facts.append((.identity, FactContent(text: "Is called \(Text.capitalizedFirst(name))", slot: "name")))
        }
        let goalMarkers = ["my goal is to", "my main goal is to", "my biggest goal is to", "i want to become", "i want to get better at",
                           "im working toward", "im working towards", "i hope to", "i plan to", "im aiming to", "i am aiming to"]
            + (namesAGoal ? ["i really want to", "i want to", "id love to", "i need to"] : [])
        for marker in goalMarkers {
            if let goal = rest(after: marker) {
                facts.append((.goal, FactContent(text: "Wants to \(Text.thirdPerson(marker.hasSuffix("become") ? "become " + goal : marker.hasSuffix("at") ? "get better at " + goal : goal))")))
                break
            }
        }
        if let focus = rest(after: "by focusing on") ?? rest(after: "i focus on") {
            facts.append((.strategy, FactContent(text: "Gets through hard moments by focusing on \(Text.thirdPerson(focus))")))
        }
        if let range = line.range(of: " really helps me ") ?? line.range(of: " helps me ") ?? line.range(of: " helped me ") {
            let subject = line[..<range.lowerBound].split(separator: " ").suffix(5).joined(separator: " ")
            if subject.split(separator: " ").count >= 1 {
                facts.append((.strategy, FactContent(text: "\(Text.capitalizedFirst(Text.thirdPerson(subject))) helps them")))
            }
        }
        if let liked = rest(after: "i prefer", limit: 8) {
            facts.append((.preference, FactContent(text: "Prefers \(Text.thirdPerson(liked))")))
        }
        if let rather = rest(after: "id rather", limit: 8) ?? rest(after: "i would rather", limit: 8) {
            facts.append((.preference, FactContent(text: "Would rather \(Text.thirdPerson(rather))")))
        }
        if let disliked = rest(after: "i hate it when", limit: 8) ?? rest(after: "i dont like it when", limit: 8) {
            facts.append((.preference, FactContent(text: "Dislikes it when \(Text.thirdPerson(disliked))")))
        }
        // Values: what the person says matters to them.
        if let value = rest(after: "what matters most to me is") ?? rest(after: "what matters to me is") ?? rest(after: "i value") {
            facts.append((.identity, FactContent(text: "Values \(Text.thirdPerson(value))")))
        }
        if let cared = rest(after: "i care deeply about") ?? rest(after: "i care most about") ?? rest(after: "i really care about") {
            facts.append((.identity, FactContent(text: "Cares about \(Text.thirdPerson(cared))")))
        }
        for person in ["manager", "boss", "director", "partner", "wife", "husband", "mom", "mother", "dad", "father", "sister", "brother", "team"] {
            for verb in ["told me", "said"] {
                if let what = rest(after: "my \(person) just \(verb)") ?? rest(after: "my \(person) \(verb)") {
                    let said = what.hasPrefix("that ") ? String(what.dropFirst(5)) : what
                    facts.append((.event, FactContent(text: "Their \(person) told them \(Text.thirdPerson(said))")))
                }
            }
        }
        for feeling in ["anxious", "stressed", "nervous", "panic", "angry"] {
            if let range = line.range(of: " makes me \(feeling) ") {
                let cause = line[..<range.lowerBound].split(separator: " ").suffix(6).joined(separator: " ")
                facts.append((.trigger, FactContent(text: "\(Text.capitalizedFirst(Text.thirdPerson(cause))) makes them \(feeling)")))
            }
            if let cause = rest(after: "i get \(feeling) when") ?? rest(after: "i get \(feeling) before") {
                facts.append((.trigger, FactContent(text: "Gets \(feeling) when \(Text.thirdPerson(cause))")))
            }
        }
        return facts
    }

    static let clauseBreaks: Set<String> = ["and", "but", "because", "so", "which", "when", "if"]
}
