/// A small pattern language over ``Tokens`` (one clause at a time), so that cue lists read like the phrases they
/// catch. Elements are separated by spaces:
///
/// - `die` a word; `suicid*` a word starting so;
/// - `want|wish|hope` one of several; `end_my_life` (underscores) several words in a row, usable as an alternative;
/// - a trailing `?` makes an element optional: `really?`, `my|the?`;
/// - `~3` skips up to three words;
/// - `#` a count of ten or more ("took 30 paracetamol", "twenty pills");
/// - `$` the end of the clause: "I cut" alone is self-harm, "I cut the cake" is not;
/// - `@self` one of a named class of words (``TokenPattern/classes``), itself alternatives.
///
/// Matching is anchored at a start word and greedy-free (every way is tried), which stays cheap because
/// patterns are short and clauses are too. Words are compared by their keys (``KeyedWords``), computed once a
/// message, rather than hashed again at every try.
public struct TokenPattern: Sendable, CustomStringConvertible {
    enum Word: Sendable, Equatable {
        case exact(String, key: UInt64)
        case prefix(String)
        case many

        func matches(_ word: String, key: UInt64) -> Bool {
            switch self {
            case .exact(let expected, let expectedKey): key == expectedKey && word == expected
            case .prefix(let start): word.hasPrefix(start)
            case .many: Int(word).map { $0 >= 10 } ?? Self.manyWords.contains(word)
            }
        }

        static let manyWords: Set<String> = [
            "ten", "twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "hundred", "dozen", "dozens", "hundreds",
        ]
    }

    /// One of several word sequences. Single plain words, most alternatives, are looked up in a ``WordSet`` rather
    /// than tried one by one: classes such as `@person` run to a hundred words.
    struct Choice: Sendable {
        var words = WordSet()
        var sequences: [[Word]] = []
        var optional = false

        mutating func add(_ sequence: [Word]) {
            if sequence.count == 1, case .exact(let word, _) = sequence[0] { words.insert(word) } else { sequences.append(sequence) }
        }
    }

    enum Element: Sendable {
        case choice(Choice)
        case gap(Int)
        case end
    }

    let elements: [Element]
    public let description: String
    /// The words a match can start with, when the first element is a required choice of plain words; `nil`
    /// when it can start anywhere (an optional, a prefix or a gap first). Lets a search skip most positions.
    let firstWords: WordSet?

    /// Parses `source`; a malformed pattern or an unknown class is a programming error in a cue list.
    public init(_ source: String, classes: [String: String] = TokenPattern.classes) {
        description = source
        elements = source.split(separator: " ").map { part in
            if part.hasPrefix("~"), let span = Int(part.dropFirst()) { return .gap(span) }
            if part == "$" { return .end }
            var text = Substring(part)
            var choice = Choice()
            choice.optional = text.hasSuffix("?")
            if choice.optional { text = text.dropLast() }
            for alternative in text.split(separator: "|") {
                if alternative.hasPrefix("@") {
                    guard let members = classes[String(alternative.dropFirst())] else {
                        preconditionFailure("unknown word class \(alternative) in pattern '\(source)'")
                    }
                    guard case .choice(let member)? = TokenPattern(members, classes: classes).elements.first else { continue }
                    choice.words.formUnion(member.words)
                    choice.sequences += member.sequences
                } else {
                    choice.add(alternative.split(separator: "_").map { word in
                        word == "#" ? .many : word.hasSuffix("*") ? .prefix(String(word.dropLast()))
                            : .exact(String(word), key: KeyedWords.key(word))
                    })
                }
            }
            return .choice(choice)
        }
        firstWords = Self.firstWords(of: elements)
    }

    private static func firstWords(of elements: [Element]) -> WordSet? {
        guard case .choice(let choice)? = elements.first, !choice.optional else { return nil }
        var words = choice.words
        for sequence in choice.sequences {
            guard case .exact(let word, _)? = sequence.first else { return nil }
            words.insert(word)
        }
        return words
    }

    /// The end (exclusive) of the first match starting exactly at `start`, not crossing `limit`.
    func match(_ words: KeyedWords, at start: Int, limit: Int) -> Int? {
        match(element: 0, words: words, position: start, limit: limit)
    }

    /// Where the pattern first matches in `words[range]`: the start and end of the span.
    public func firstMatch(in words: KeyedWords, range: Range<Int>) -> Range<Int>? {
        for start in range where firstWords?.contains(words.words[start], key: words.keys[start]) ?? true {
            if let end = match(words, at: start, limit: range.upperBound) { return start..<end }
        }
        return nil
    }

    private func match(element index: Int, words: KeyedWords, position: Int, limit: Int) -> Int? {
        guard index < elements.count else { return position }
        switch elements[index] {
        case .gap(let span):
            for skip in 0...span where position + skip <= limit {
                if let end = match(element: index + 1, words: words, position: position + skip, limit: limit) { return end }
            }
            return nil
        case .end:
            return position == limit ? match(element: index + 1, words: words, position: position, limit: limit) : nil
        case .choice(let choice):
            if position < limit, choice.words.contains(words.words[position], key: words.keys[position]),
               let end = match(element: index + 1, words: words, position: position + 1, limit: limit) {
                return end
            }
            for sequence in choice.sequences where position + sequence.count <= limit {
                if sequence.indices.allSatisfy({ sequence[$0].matches(words.words[position + $0], key: words.keys[position + $0]) }),
                   let end = match(element: index + 1, words: words, position: position + sequence.count, limit: limit) {
                    return end
                }
            }
            return choice.optional ? match(element: index + 1, words: words, position: position, limit: limit) : nil
        }
    }

    /// Word classes shared by every cue list.
    public static let classes: [String: String] = [
        "self": "i|me",
        /// The words ``Negation`` reads as a denial, and "nobody"/"nothing", which deny within a cue ("nothing worth
        /// living for") but not before one ("nobody would notice if I killed myself" denies nothing).
        "neg": (Negation.words.sorted() + ["nobody", "nothing"]).joined(separator: "|"),
        "partner": "partner|husband|wife|boyfriend|girlfriend|fiance|fiancee|spouse|ex|ex_husband|ex_wife|ex_boyfriend|ex_girlfriend",
        "family": "dad|mom|stepdad|stepmom|parents|brother|sister|uncle|aunt|grandpa|grandma|cousin|son|daughter",
        "kin": "friend|friends|sister|brother|son|daughter|kid|kids|child|children|teen|teenager|mom|dad|roommate|flatmate|housemate|colleague|coworker|cousin|niece|nephew|partner|husband|wife|boyfriend|girlfriend|student|classmate|neighbor|neighbour|mate|buddy|bestfriend|best_friend|baby|toddler|stepson|stepdaughter|grandson|granddaughter|nan|grandma|grandpa|granddad|grandad|granny|uncle|aunt|fiance|fiancee|twin|stepbrother|stepsister|stepmom|stepdad|client|patient|pupil|teammate|cellmate|in_law",
        /// Anyone a threat can be aimed at, for "going to glass that lad", "torch his car with him in it".
        "person": "@kin|@he|guy|lad|lads|bloke|man|woman|girl|boy|dude|boss|manager|ex|teacher|landlord|stranger|strangers|cyclist|cyclists|people|everyone|everybody|someone|somebody|coworkers|colleagues|supervisor|officer|cop|wifes|husbands",
        /// Doing someone serious harm: the verbs of threats and plans.
        "violent": "kill|end|hurt|stab|shoot|strangle|choke|beat|punch|poison|attack|smother|harm|murder|run_over|run_down|hit|slap|shove|smash|glass|torch|batter|bash|deck|knife|maim|cripple|bottle|drown|suffocate|flog|lamp|shank|do_in|slash|killing|hurting|stabbing|shooting|beating|punching|poisoning|attacking|murdering|strangling|torching|glassing|hitting",
        /// Where self-harm is done, "on my wrist", "across my thighs".
        "body": "arm|arms|wrist|wrists|thigh|thighs|leg|legs|skin|hand|hands|stomach|hip|hips|ankle|ankles|face|chest|neck|throat|finger|fingers|palm|palms|belly|shoulder|shoulders|foot|feet|forearm|forearms|knuckles|body",
        /// Animals: cruelty to them is harm to others ("kicked the cat across the room").
        "animal": "cat|cats|dog|dogs|puppy|kitten|pet|pets|rabbit|hamster",
        /// Words of self-injury and risk that "on purpose" turns into self-harm: "skipped my insulin on purpose".
        "injury": "burned_my|burnt_my|burn_my|burning_my|cut_myself|bleed|bled|bleeding|crash_my|crashed_my|crashed_into|crash_into|into_traffic|broken_glass|hob|stove|iron|cigarette|lighter|fracture|injury|injured|@pills|helmet|no_helmet|no_rope|without_a_rope|without_a_helmet|seatbelt|starve|starving|bruise|bruised|scald|scalded|my_own",
        /// What an overdose is taken of ("meds", "tablets" and "painkillers" already read `pills`).
        "pills": "pills|pill|paracetamol|tylenol|ibuprofen|aspirin|insulin|morphine|codeine|oxy|oxycodone|opioids|opiates|fentanyl|benzos|xanax|valium|diazepam|lithium|antidepressants|medication|medicine|prescription|sleeping_pills|heroin",
        "he": "he|she|they|hes|shes|theyre|him|her|them",
        "reflexself": "myself|my_self",
        "reflexother": "himself|herself|themselves|themself|theirself",
        "die": "die|dying|dead|death|suicide",
        "my": "my|my_own",
        "their": "his|her|their|his_own|her_own|their_own",
    ]
}

/// Patterns indexed by the words they can start with, so a scan of a clause looks each word up once instead of
/// trying every pattern at every word. Patterns that can start anywhere are tried everywhere.
struct PatternIndex: Sendable {
    /// For each word's key some pattern starts with: those patterns, then the ones that start anywhere (built
    /// once, so a scan allocates nothing per word). Two words sharing a key would share their candidates, which
    /// the patterns' own matching then tells apart.
    private let candidates: [UInt64: [Int]]
    private let anywhere: [Int]

    init(_ patterns: [TokenPattern]) {
        var byFirstWord: [UInt64: [Int]] = [:]
        var anywhere: [Int] = []
        for (index, pattern) in patterns.enumerated() {
            if let words = pattern.firstWords {
                for key in Set(words.keys) { byFirstWord[key, default: []].append(index) }
            } else {
                anywhere.append(index)
            }
        }
        candidates = byFirstWord.mapValues { $0 + anywhere }
        self.anywhere = anywhere
    }

    /// The indices of the patterns that may match starting at the word with `key`.
    func candidates(at key: UInt64) -> [Int] {
        candidates[key] ?? anywhere
    }
}

/// The words of a message with each one's key, FNV-1a over its UTF-8, computed once: pattern matching compares
/// keys where it would otherwise hash the same strings again at every try (hashing strings was a fifth of the
/// crisis check), and compares the words themselves only when their keys agree.
public struct KeyedWords: Sendable {
    public let words: [String]
    let keys: [UInt64]

    public init(_ words: [String]) {
        self.words = words
        keys = words.map(Self.key)
    }

    static func key(_ word: some StringProtocol) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in word.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// A set of plain words kept sorted by key (``KeyedWords``): a lookup is a binary search over integers, then one
/// comparison of the word, with nothing hashed or allocated.
struct WordSet: Sendable {
    private(set) var keys: [UInt64] = []
    private(set) var words: [String] = []

    mutating func insert(_ word: some StringProtocol) {
        let word = String(word), key = KeyedWords.key(word)
        let (index, found) = position(of: word, key: key)
        guard !found else { return }
        keys.insert(key, at: index)
        words.insert(word, at: index)
    }

    mutating func formUnion(_ other: WordSet) {
        for word in other.words { insert(word) }
    }

    func contains(_ word: String, key: UInt64) -> Bool {
        position(of: word, key: key).found
    }

    /// Where `word` is, or where it would go: a binary search for its key, then the words sharing that key.
    private func position(of word: String, key: UInt64) -> (index: Int, found: Bool) {
        var (low, high) = (0, keys.count)
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        while low < keys.count, keys[low] == key {
            if words[low] == word { return (low, true) }
            low += 1
        }
        return (low, false)
    }
}
