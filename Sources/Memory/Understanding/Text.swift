import Foundation

/// The small text toolkit the offline summarizer, the offline extractor and recall share: deterministic,
/// no model, microseconds per message.
enum Text {
    /// Lowercased words without punctuation; apostrophes dropped ("didn't" → "didnt") so spellings with and
    /// without them match.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar == "'" || scalar == "\u{2019}" { continue }
            if isWordScalar(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A letter, mark or digit (`CharacterSet.alphanumerics`), read from the scalar itself for ASCII: every turn reads
    /// its message's words twice, and the character set's look-up was most of that.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return CharacterSet.alphanumerics.contains(scalar) }
        return ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Sentences, trimmed, empty ones dropped.
    static func sentences(_ text: String) -> [String] {
        text.split(whereSeparator: { ".!?\n".contains($0) })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// Words that carry meaning, reduced to a crude stem so "strategic"/"strategy" and "meetings"/"meeting" meet.
    static func keywords(_ text: String) -> Set<String> {
        Set(words(text).filter { $0.count >= 4 && !stopwords.contains($0) }.map(stem))
    }

    static func stem(_ word: String) -> String {
        for suffix in ["ically", "ation", "ings", "ing", "ies", "ied", "ed", "ic", "y", "es", "s"] where word.count > suffix.count + 3 && word.hasSuffix(suffix) {
            return String(word.dropLast(suffix.count))
        }
        return word
    }

    /// First person turned to third, for facts about the person ("my manager told me" → "their manager told them").
    static func thirdPerson(_ phrase: String) -> String {
        phrase.split(separator: " ").map { word -> String in
            let bare = word.trimmingCharacters(in: .punctuationCharacters).lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
            guard let swapped = thirdPersonSwaps[bare] else { return String(word) }
            return swapped
        }.joined(separator: " ")
    }

    /// Order kept, repeats dropped.
    static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }

    static func capitalizedFirst(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    static let thirdPersonSwaps: [String: String] = [
        "i": "they", "i'm": "they're", "im": "they're", "i've": "they've", "i'll": "they'll", "i'd": "they'd",
        "me": "them", "my": "their", "mine": "theirs", "myself": "themselves", "am": "are", "was": "were",
    ]

    static let stopwords: Set<String> = [
        "about", "after", "again", "also", "always", "anything", "because", "been", "before", "being", "could",
        "didnt", "does", "doesnt", "doing", "dont", "even", "every", "feel", "feeling", "from", "going", "have",
        "having", "here", "into", "just", "know", "like", "maybe", "more", "much", "myself", "need", "never",
        "only", "other", "really", "said", "should", "some", "something", "still", "that", "thats", "their",
        "them", "then", "there", "these", "they", "thing", "things", "think", "this", "those", "through", "time",
        "today", "want", "were", "what", "when", "where", "which", "while", "with", "would", "your", "youre",
        "yeah", "okay", "pretty", "actually", "kind", "sort", "lately", "tomorrow", "yesterday", "week",
    ]
}
