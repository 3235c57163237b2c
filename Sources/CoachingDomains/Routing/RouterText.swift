/// How the router reads text: lowercase words, crudely stemmed so "interviews", "interviewing" and "interview"
/// are one feature, and the short phrases (two and three words) that carry meaning single words lack
/// ("pay rise", "quit my job"). Keywords and messages go through the same reading, so they meet.
enum RouterText {
    /// Words too common to say anything about a domain on their own (they still join phrases).
    static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "if", "so", "of", "to", "in", "on", "at", "for", "with", "about", "from", "by",
        "as", "into", "than", "then", "i", "im", "ive", "id", "ill", "me", "my", "mine", "myself", "you", "your", "we", "our",
        "us", "he", "him", "his", "she", "her", "they", "them", "their", "it", "its", "this", "that", "these", "those", "is",
        "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "doing", "have", "has", "had", "having",
        "will", "would", "can", "could", "should", "shall", "may", "might", "must", "not", "no", "dont", "cant", "wont",
        "didnt", "doesnt", "isnt", "arent", "wasnt", "just", "really", "very", "too", "also", "still", "even", "get", "got",
        "getting", "go", "going", "know", "think", "feel", "feeling", "want", "wanted", "need", "like", "what", "how", "why",
        "when", "where", "who", "which", "there", "here", "all", "any", "some", "more", "most", "much", "many", "one", "out",
        "up", "down", "over", "again", "now", "way", "thing", "things", "something", "anything", "lot", "bit", "kind", "yeah",
        "yes", "ok", "okay", "right", "exactly", "totally", "well", "oh", "hi", "hey", "thanks", "thank", "please", "because",
        "keep", "make", "made", "say", "said", "tell", "told", "try", "trying", "start", "stop", "day", "week", "time", "year",
        "back", "new", "good", "bad", "hard", "help", "other", "only", "ever", "never", "always", "every", "each", "sure",
        "cause", "cuz", "lol", "tbh", "idk", "u", "ur", "im", "gonna", "wanna",
    ]

    /// Stems of the words of `text`, in order (apostrophes dropped: "don't" → "dont").
    static func words(_ text: String) -> [String] {
        text.utf8.allSatisfy { $0 < 0x80 } ? asciiWords(text) : characterWords(text)
    }

    /// ``characterWords(_:)`` for ASCII text, most messages, read from bytes: there a letter or digit is
    /// `[A-Za-z0-9]` and lowercasing sets one bit, so no `Character` has to be built (the router was 1.2% of a
    /// turn's CPU). `RouterTextTests` holds it to the general reading.
    static func asciiWords(_ text: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        func flush() {
            guard !current.isEmpty else { return }
            words.append(stem(String(decoding: current, as: UTF8.self)))
            current.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): current.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): current.append(byte | 0x20)
            case UInt8(ascii: "'"): continue
            default: flush()
            }
        }
        flush()
        return words
    }

    static func characterWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if character == "'" || character == "’" {
                continue
            } else if !current.isEmpty {
                words.append(stem(current))
                current = ""
            }
        }
        if !current.isEmpty { words.append(stem(current)) }
        return words
    }

    /// Features of `text`: content words, every two-word phrase and, with `triples`, every three-word one.
    /// Messages are read with triples so that three-word keywords ("quit my job") can meet them; samples are
    /// learned without, because their chance triples are noise the router would remember.
    static func features(_ text: String, triples: Bool) -> [String] {
        let words = words(text)
        var features = words.filter { !stopWords.contains($0) && $0.count > 1 }
        for index in words.indices {
            if index + 1 < words.count { features.append(words[index] + " " + words[index + 1]) }
            if triples, index + 2 < words.count { features.append(words[index] + " " + words[index + 1] + " " + words[index + 2]) }
        }
        return features
    }

    /// A keyword as one feature: its words stemmed and joined ("Pay Rises" → "pay rise").
    static func phrase(_ keyword: String) -> String {
        words(keyword).joined(separator: " ")
    }

    /// Crude suffix stripping, enough to join inflections without a dictionary ("running" → "runn" and
    /// "runs" → "run" do not meet; "interviews"/"interviewing"/"interviewed" do). The stem keeps 3+ letters.
    static func stem(_ word: String) -> String {
        guard word.count > 4 else { return word.hasSuffix("s") && !word.hasSuffix("ss") && word.count > 3 ? String(word.dropLast()) : word }
        for suffix in ["ing", "ies", "ed", "es", "s", "ly"] where word.hasSuffix(suffix) && !word.hasSuffix("ss") {
            let stem = word.dropLast(suffix.count)
            if stem.count >= 3 { return suffix == "ies" ? stem + "y" : String(stem) }
        }
        return word
    }
}
