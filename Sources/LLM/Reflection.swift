/// How the offline coach mirrors what the person said, as reflective listening does: the heart of one sentence in
/// the second person, never the message pasted whole. Pure text work, no I/O.
///
/// - A statement becomes "It sounds like …": its first clause (cut where a new clause begins, at most 14 words, never
///   ending on a word that leads somewhere), pronouns turned ("my manager" → "your manager", "I was" → "you were"),
///   its first word in lower case unless it is a name.
/// - A question stays a question: "How do I talk to my manager?" → "Are you wondering how to talk to your manager?";
///   "Should I quit?" → "Are you wondering whether you should quit?"; one that does not fold that way is asked back
///   as it was ("It sounds like you're asking yourself: why does
///   this keep happening?").
enum Reflection: Equatable {
    case statement(String)
    case question(String)

    var text: String {
        switch self {
        case .statement(let text), .question(let text): text
        }
    }

    /// The reflection of `message`, or nil when there is too little to reflect (under three words).
    static func of(_ message: String) -> Reflection? {
        let sentences = sentences(in: message)
        // A question the person asks is what they want heard; otherwise the fullest sentence.
        if let question = sentences.last(where: \.isQuestion) {
            let words = clause(question.words, limit: 16)
            guard words.count >= 3 else { return nil }
            return .question(asked(secondPerson(words)))
        }
        guard let sentence = sentences.max(by: { $0.words.count < $1.words.count }) else { return nil }
        let words = clause(sentence.words, limit: 14)
        guard words.count >= 3 else { return nil }
        return .statement("It sounds like \(lowercasedStart(secondPerson(words)).joined(separator: " ")).")
    }

    // MARK: - Sentences and clauses

    struct Sentence {
        let words: [String]
        let isQuestion: Bool
    }

    static func sentences(in text: String) -> [Sentence] {
        var sentences: [Sentence] = []
        var current = ""
        func end(question: Bool) {
            let words = current.split(whereSeparator: \.isWhitespace).map(String.init)
            if !words.isEmpty { sentences.append(Sentence(words: words, isQuestion: question)) }
            current = ""
        }
        for character in text {
            switch character {
            case "?": end(question: true)
            case ".", "!", "\n": end(question: false)
            default: current.append(character)
            }
        }
        end(question: false)
        return sentences
    }

    /// The sentence's first clause: cut before a word that starts a new one ("but", "because", "so", "which", "and"
    /// after a comma) or after a word that ends one (a comma, semicolon, colon or dash), once there are four words;
    /// then at most `limit` words, and never ending on a word that leads somewhere ("the", "to", "my").
    static func clause(_ words: [String], limit: Int) -> [String] {
        var kept: [String] = []
        for word in words {
            let bare = word.lowercased().trimmingCharacters(in: .punctuationCharacters)
            if kept.count >= 4, clauseStarters.contains(bare) || (bare == "and" && kept.last?.hasSuffix(",") == true) { break }
            kept.append(word)
            if kept.count >= 4, let last = word.last, ",;:—–".contains(last) { break }
            if kept.count == limit { break }
        }
        var cleaned = kept.map { $0.trimmingCharacters(in: .punctuationCharacters.subtracting(["'", "’"])) }.filter { !$0.isEmpty }
        while let last = cleaned.last, cleaned.count > 3, danglers.contains(last.lowercased()) { cleaned.removeLast() }
        return cleaned
    }

    static let clauseStarters: Set<String> = ["but", "because", "so", "which", "although", "though", "while", "whereas"]

    static let danglers: Set<String> = [
        "a", "an", "the", "to", "of", "in", "on", "at", "for", "with", "by", "from", "about", "and", "or", "but", "my", "your",
        "his", "her", "their", "our", "its", "that", "this", "as", "into", "than", "very", "so",
    ]

    // MARK: - Person

    /// First person turned to second; "am" and "was" only after "I" ("it was" stays "it was").
    static func secondPerson(_ words: [String]) -> [String] {
        var turned: [String] = []
        var previous = ""
        for word in words {
            let bare = word.lowercased().replacingOccurrences(of: "’", with: "'")
            if previous == "i", let verb = ["am": "are", "was": "were"][bare] {
                turned.append(verb)
            } else {
                turned.append(swaps[bare] ?? word)
            }
            previous = bare
        }
        return turned
    }

    static let swaps: [String: String] = [
        "i": "you", "i'm": "you're", "im": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd",
        "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    ]

    /// The first word in lower case, unless it reads as a name ("Sarah", "Monday"): a capital mid-sentence is wrong.
    static func lowercasedStart(_ words: [String]) -> [String] {
        guard let first = words.first, !namesLike(first) else { return words }
        return [first.lowercased()] + words.dropFirst()
    }

    /// Capitalised and not one of the words sentences commonly begin with.
    static func namesLike(_ word: String) -> Bool {
        guard let initial = word.first, initial.isUppercase, word.dropFirst().allSatisfy({ !$0.isUppercase }) else { return false }
        return !commonStarts.contains(word.lowercased())
    }

    static let commonStarts: Set<String> = [
        "it", "it's", "its", "the", "a", "an", "this", "that", "these", "those", "there", "there's", "here", "we", "we're",
        "he", "she", "they", "they're", "he's", "she's", "you", "your", "our", "his", "her", "their", "what", "when",
        "where", "why", "how", "who", "which", "today", "yesterday", "tonight", "lately", "recently", "sometimes",
        "honestly", "really", "just", "still", "again", "also", "so", "but", "and", "then", "now", "if", "because",
        "since", "after", "before", "every", "everything", "everyone", "nothing", "nobody", "someone", "something",
        "work", "life", "things", "people", "all", "most", "some", "no", "not", "never", "always", "maybe", "even",
        "last", "next", "one", "being", "getting", "feeling", "trying", "working", "in", "on", "at", "for", "with",
        "my", "me", "is", "was", "do", "does", "did", "can", "could", "should", "would", "will", "am", "are", "have",
        "has", "had", "got", "been", "keep", "kept", "whenever", "until", "though", "although", "well", "okay", "ok",
    ]

    // MARK: - Questions

    /// The question asked back. "how do you talk…" (after the turn of person) becomes "Are you wondering how to talk…?";
    /// "should you…" "Are you wondering whether you should…?"; any other is asked back as it was.
    static func asked(_ words: [String]) -> String {
        let lower = words.map { $0.lowercased() }
        if lower.count >= 4, ["how", "what", "where", "when", "who", "whether"].contains(lower[0]),
           ["do", "can", "should", "could", "would"].contains(lower[1]), lower[2] == "you" {
            return "Are you wondering \(lower[0]) to \(words.dropFirst(3).joined(separator: " "))?"
        }
        if lower.count >= 3, ["do", "should", "can", "could", "would"].contains(lower[0]), lower[1] == "you" {
            let verb = lower[0] == "do" ? "" : lower[0] + " "
            return "Are you wondering whether you \(verb)\(words.dropFirst(2).joined(separator: " "))?"
        }
        return "It sounds like you're asking yourself: \(lowercasedStart(words).joined(separator: " "))?"
    }
}
