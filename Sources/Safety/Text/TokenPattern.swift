/// A small pattern language over ``Tokens`` (one clause at a time), so that cue lists read like the phrases they
/// catch. Elements are separated by spaces:
///
/// - `die` a word; `suicid*` a word starting so;
/// - `want|wish|hope` one of several; `end_my_life` (underscores) several words in a row, usable as an alternative;
/// - a trailing `?` makes an element optional: `really?`, `my|the?`;
/// - `~3` skips up to three words;
/// - `@self` one of a named class of words (``TokenPattern/classes``), itself alternatives.
///
/// Matching is anchored at a start word and greedy-free (every way is tried), which stays cheap because
/// patterns are short and clauses are too.
public struct TokenPattern: Sendable, CustomStringConvertible {
    enum Word: Sendable, Equatable {
        case exact(String)
        case prefix(String)

        func matches(_ word: String) -> Bool {
            switch self {
            case .exact(let expected): word == expected
            case .prefix(let start): word.hasPrefix(start)
            }
        }
    }

    enum Element: Sendable {
        /// One of several word sequences.
        case choice([[Word]], optional: Bool)
        case gap(Int)
    }

    let elements: [Element]
    public let description: String

    /// Parses `source`; a malformed pattern or an unknown class is a programming error in a cue list.
    public init(_ source: String, classes: [String: String] = TokenPattern.classes) {
        description = source
        elements = source.split(separator: " ").map { part in
            if part.hasPrefix("~"), let span = Int(part.dropFirst()) { return .gap(span) }
            var text = Substring(part)
            let optional = text.hasSuffix("?")
            if optional { text = text.dropLast() }
            var alternatives: [[Word]] = []
            for alternative in text.split(separator: "|") {
                if alternative.hasPrefix("@") {
                    guard let members = classes[String(alternative.dropFirst())] else {
                        preconditionFailure("unknown word class \(alternative) in pattern '\(source)'")
                    }
                    alternatives += TokenPattern(members, classes: classes).elements.flatMap { element -> [[Word]] in
                        guard case .choice(let sequences, _) = element else { return [] }
                        return sequences
                    }
                } else {
                    alternatives.append(alternative.split(separator: "_").map { word in
                        word.hasSuffix("*") ? .prefix(String(word.dropLast())) : .exact(String(word))
                    })
                }
            }
            return .choice(alternatives, optional: optional)
        }
    }

    /// The words a match can start with, when the first element is a required choice of plain words; `nil`
    /// when it can start anywhere (an optional, a prefix or a gap first).
    var firstWords: Set<String>? {
        guard case .choice(let sequences, optional: false)? = elements.first else { return nil }
        var words = Set<String>()
        for sequence in sequences {
            guard case .exact(let word)? = sequence.first else { return nil }
            words.insert(word)
        }
        return words
    }

    /// The end (exclusive) of the first match starting exactly at `start`, not crossing `limit`.
    func match(_ words: ArraySlice<String>, at start: Int, limit: Int) -> Int? {
        match(element: 0, words: words, position: start, limit: limit)
    }

    /// Where the pattern first matches in `words[range]`: the start and end of the span.
    public func firstMatch(in words: [String], range: Range<Int>) -> Range<Int>? {
        let slice = words[...]
        for start in range {
            if let end = match(slice, at: start, limit: range.upperBound) { return start..<end }
        }
        return nil
    }

    private func match(element index: Int, words: ArraySlice<String>, position: Int, limit: Int) -> Int? {
        guard index < elements.count else { return position }
        switch elements[index] {
        case .gap(let span):
            for skip in 0...span where position + skip <= limit {
                if let end = match(element: index + 1, words: words, position: position + skip, limit: limit) { return end }
            }
            return nil
        case .choice(let sequences, let optional):
            for sequence in sequences where position + sequence.count <= limit {
                if zip(sequence, words[position..<(position + sequence.count)]).allSatisfy({ $0.matches($1) }),
                   let end = match(element: index + 1, words: words, position: position + sequence.count, limit: limit) {
                    return end
                }
            }
            return optional ? match(element: index + 1, words: words, position: position, limit: limit) : nil
        }
    }

    /// Word classes shared by every cue list.
    public static let classes: [String: String] = [
        "self": "i|me",
        "neg": "not|no|never|dont|doesnt|didnt|wont|wouldnt|cant|couldnt|shouldnt|isnt|arent|wasnt|werent|aint|havent|hasnt|hadnt|nobody|nothing",
        "partner": "partner|husband|wife|boyfriend|girlfriend|fiance|fiancee|spouse|ex|ex_husband|ex_wife|ex_boyfriend|ex_girlfriend",
        "family": "dad|mom|stepdad|stepmom|parents|brother|sister|uncle|aunt|grandpa|grandma|cousin|son|daughter",
        "kin": "friend|friends|sister|brother|son|daughter|kid|kids|child|children|teen|teenager|mom|dad|roommate|flatmate|housemate|colleague|coworker|cousin|niece|nephew|partner|husband|wife|boyfriend|girlfriend|student|classmate|neighbor|neighbour|mate|buddy|bestfriend|best_friend|baby|toddler|stepson|stepdaughter|grandson|granddaughter|nan|grandma|grandpa|uncle|aunt|fiance|fiancee",
        "he": "he|she|they|hes|shes|theyre|him|her|them",
        "reflexself": "myself|my_self",
        "reflexother": "himself|herself|themselves|themself|theirself",
        "die": "die|dying|dead|death|suicide",
        "my": "my|my_own",
        "their": "his|her|their|his_own|her_own|their_own",
    ]
}
