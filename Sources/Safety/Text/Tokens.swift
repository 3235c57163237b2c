import Foundation

/// A message as the safety classifiers read it: lowercased words in clauses, with spelling, slang and
/// contractions brought to one form, and each word marked when it sits inside quotation marks.
///
/// Normalising first keeps the cue lists short: "im gonna kms", "I'm going to kill myself" and
/// "i’m goin to kil myslef" all read `i am going to kill myself`.
public struct Tokens: Sendable {
    public struct Token: Sendable, Equatable {
        public let word: String
        /// Index of the clause (sentence, or the part after "but", "though"…) the word belongs to.
        public internal(set) var clause: Int
        /// Inside "…", “…” or '…': someone else's words, a title or a lyric.
        public let quoted: Bool
        /// Written with "'s" that was not "is": "my dad's gun" is the writer's act, not dad's.
        public internal(set) var possessive = false
    }

    public let tokens: [Token]
    /// Laughter or a wink ("lol", "haha", 😂, "jk") anywhere in the message.
    public let laughs: Bool
    /// The words, keyed once for the pattern matcher (``TokenPattern``).
    public let keyed: KeyedWords

    public init(_ text: String) {
        var tokens: [Token] = []
        var clause = 0
        var quoted = false
        var singleQuoted = false
        var laughs = false
        var current = ""
        /// Where in `current` an apostrophe was dropped, to read "he'll", "she'd", "my ex's".
        var apostrophe: Int?

        func flush() {
            guard !current.isEmpty else { return }
            var raw = current
            var added: String?
            current = ""
            var possessive = false
            if let at = apostrophe {
                let read = Self.contraction(raw, apostropheAt: at)
                possessive = read.possessive
                (raw, added) = (read.word, read.added)
                apostrophe = nil
            }
            if Self.laughter.contains(raw) || raw.hasPrefix("haha") || raw.hasPrefix("lmao") { laughs = true }
            if Self.clauseWords.contains(raw), !tokens.isEmpty, tokens.last?.clause == clause {
                clause += 1
                return
            }
            for word in Self.normalise(raw) {
                tokens.append(Token(word: word, clause: clause, quoted: quoted || singleQuoted, possessive: possessive))
            }
            if let added { tokens.append(Token(word: added, clause: clause, quoted: quoted || singleQuoted)) }
        }

        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "'", "\u{2019}", "\u{2018}", "`":
                // Inside a word an apostrophe vanishes ("don't" → "dont"; "my ex's car" → "my ex car"). Before a
                // word it opens a single-quoted stretch ("she shouted 'I hate you'"), after one it closes it.
                let next = index + 1 < scalars.count ? scalars[index + 1] : " "
                let letterNext = Self.isLetter(next)
                if !current.isEmpty, letterNext {
                    apostrophe = current.unicodeScalars.count
                    continue
                }
                flush()
                singleQuoted = letterNext
            case "\"", "\u{201C}", "\u{201D}", "\u{00AB}", "\u{00BB}":
                flush()
                quoted.toggle()
            case ".", "!", "?", ";", "\n", "\u{2026}":
                flush()
                // A stray apostrophe ("'cause") must not quote the rest of the message.
                singleQuoted = false
                if tokens.last?.clause == clause { clause += 1 }
            case _ where Self.laughEmoji.contains(scalar):
                flush()
                laughs = true
            default:
                if Self.isLetter(scalar) || ("0"..."9").contains(scalar) {
                    if scalar.isASCII {
                        current.unicodeScalars.append(scalar)
                    } else {
                        current.unicodeScalars.append(contentsOf: Self.fold(scalar))
                    }
                } else if scalar == "," || scalar == ":" || scalar == "(" || scalar == ")" {
                    // A comma ends a clause too: "I was in a dark place years ago, doing great now".
                    flush()
                    if tokens.last?.clause == clause { clause += 1 }
                } else {
                    // "-", "/" and every other mark separate words.
                    flush()
                }
            }
        }
        flush()
        self.tokens = Self.finish(tokens)
        self.laughs = laughs
        keyed = KeyedWords(self.tokens.map(\.word))
    }

    /// Readings that need the next word: "my flatmate's been" is "has been", not a possessive; and "and I" starts
    /// a clause of its own ("my wife passed last year and I see no reason to carry on"), so the first half's tense
    /// and negation stay there. Copies the tokens only when something changes.
    static func finish(_ tokens: [Token]) -> [Token] {
        var finished = tokens
        var shift = 0
        for index in tokens.indices {
            if index > 0, tokens[index - 1].word == "and", tokens[index].word == "i", tokens[index - 1].clause == tokens[index].clause { shift += 1 }
            if shift > 0 { finished[index].clause += shift }
            if tokens[index].possessive, index + 1 < tokens.count, afterIsOrHas.contains(tokens[index + 1].word) {
                finished[index].possessive = false
            }
        }
        return finished
    }

    /// Words that follow "'s" meaning "is" or "has" rather than a possessive: "she's been", "dad's going".
    static let afterIsOrHas: Set<String> = [
        "been", "got", "gone", "going", "not", "never", "always", "just", "still", "so", "very", "really", "a", "an",
        "the", "in", "on", "at", "back", "out", "off", "up", "down", "here", "there", "fine", "okay", "ok", "done",
        "taken", "told", "said", "started", "stopped", "left", "had", "coming", "talking", "saying", "threatening",
    ]

    public var words: [String] { keyed.words }

    /// A word that had an apostrophe: "he'll" → "he" + "will", "they'd" → "they" + "would", "they've" → "they" +
    /// "have", and a possessive loses its "s" ("my ex's car" → "my ex car") so the person is seen. The rest keep
    /// their letters ("don't" → "dont", "she's" → "shes"), as the cues spell them.
    static func contraction(_ word: String, apostropheAt index: Int) -> (word: String, added: String?, possessive: Bool) {
        let scalars = word.unicodeScalars
        let split = scalars.index(scalars.startIndex, offsetBy: index, limitedBy: scalars.endIndex) ?? scalars.endIndex
        let stem = String(scalars[..<split]).lowercased()
        let suffix = String(scalars[split...]).lowercased()
        guard !stem.isEmpty else { return (word, nil, false) }
        switch suffix {
        case "ll": return (stem, "will", false)
        case "d": return (stem, "would", false)
        case "ve": return (stem, "have", false)
        case "s" where !keepsApostropheS.contains(stem): return (stem, nil, true)
        default: return (word, nil, false)
        }
    }

    /// One raw word as zero or more normalised words.
    static func normalise(_ raw: String) -> [String] {
        var word = raw.lowercased()
        if let expansion = expansions[word] { return expansion }
        word = collapseRepeats(word)
        if let expansion = expansions[word] { return expansion }
        if let corrected = Spelling.correct(word) { return expansions[corrected] ?? [corrected] }
        return [word]
    }

    /// Alphabetic, read from the scalar for ASCII: Unicode's property table was a tenth of the crisis check.
    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return scalar.properties.isAlphabetic }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// "sooooo" → "soo", "killll" → "kill": runs of three or more letters kept as two, then as one when the
    /// doubled form is not a word we know.
    static func collapseRepeats(_ word: String) -> String {
        // Most words are ASCII without such a run, which their bytes show without reading `Character`s.
        if word.utf8.allSatisfy({ $0 < 0x80 }), !Self.hasRunOfThree(word.utf8) { return word }
        var out: [Character] = []
        var run = 0
        var changed = false
        for character in word {
            if character == out.last {
                run += 1
                if run >= 2 { changed = true; continue }
            } else {
                run = 0
            }
            out.append(character)
        }
        guard changed else { return word }
        let doubled = String(out)
        if Spelling.known.contains(doubled) || expansions[doubled] != nil { return doubled }
        var single: [Character] = []
        for character in out where character != single.last { single.append(character) }
        let singled = String(single)
        return Spelling.known.contains(singled) || expansions[singled] != nil ? singled : doubled
    }

    private static func hasRunOfThree(_ bytes: String.UTF8View) -> Bool {
        var (previous, run): (UInt8?, Int) = (nil, 0)
        for byte in bytes {
            run = byte == previous ? run + 1 : 0
            if run >= 2 { return true }
            previous = byte
        }
        return false
    }

    /// Accents off ("é" → "e"), so "suicidé" or a pasted "naïve" read as plain letters.
    static func fold(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        var view = String.UnicodeScalarView()
        for part in decomposed where !(0x0300...0x036F).contains(part.value) { view.append(part) }
        return view
    }

    /// Words that start a new clause: negation and tense do not carry across them.
    static let clauseWords: Set<String> = ["but", "though", "although", "however", "except", "whereas", "yet"]

    /// "he's", "it's", "let's": the "'s" is "is" or "us", not a possessive, and the cues spell them "hes", "its".
    static let keepsApostropheS: Set<String> = [
        "he", "she", "it", "that", "what", "there", "here", "who", "where", "how", "when", "why", "let",
    ]

    static let laughter: Set<String> = ["lol", "lool", "lolol", "lmao", "lmfao", "rofl", "jk", "jkjk", "hehe", "xd", "kidding"]

    static let laughEmoji: Set<Unicode.Scalar> = ["\u{1F602}", "\u{1F923}", "\u{1F606}", "\u{1F605}", "\u{1F61C}", "\u{1F61D}", "\u{1F609}", "\u{1F643}", "\u{1F644}"]

    /// Contractions (apostrophe already gone), texting shorthand and euphemisms, as the words they stand for.
    static let expansions: [String: [String]] = [
        "im": ["i", "am"], "ive": ["i", "have"], "id": ["i", "would"], "iam": ["i", "am"],
        "wanna": ["want", "to"], "gonna": ["going", "to"], "gotta": ["got", "to"], "tryna": ["trying", "to"],
        "hafta": ["have", "to"], "wana": ["want", "to"], "wnt": ["want"], "kinda": ["kind", "of"],
        "cannot": ["cant"], "dnt": ["dont"], "doesn": ["doesnt"], "didn": ["didnt"],
        "u": ["you"], "ur": ["your"], "ya": ["you"], "r": ["are"], "b4": ["before"], "bc": ["because"],
        "cuz": ["because"], "coz": ["because"], "cos": ["because"], "tho": ["though"], "thru": ["through"],
        "rn": ["right", "now"], "tmrw": ["tomorrow"], "tmr": ["tomorrow"], "tn": ["tonight"], "2nite": ["tonight"],
        "tonite": ["tonight"], "idk": ["i", "dont", "know"], "idc": ["i", "dont", "care"], "ngl": ["honestly"],
        "tbh": ["honestly"], "fr": ["really"], "frfr": ["really"], "srsly": ["seriously"], "pls": ["please"],
        "plz": ["please"], "ppl": ["people"], "sb": ["somebody"], "bf": ["boyfriend"], "gf": ["girlfriend"],
        "bff": ["friend"], "bestie": ["friend"], "hubby": ["husband"], "mum": ["mom"], "mam": ["mom"], "mommy": ["mom"],
        "mother": ["mom"], "daddy": ["dad"], "father": ["dad"], "stepfather": ["stepdad"],
        "kms": ["kill", "myself"], "kmss": ["kill", "myself"], "kys": ["kill", "yourself"],
        "unalive": ["kill"], "unaliving": ["killing"], "unalived": ["killed"], "unalives": ["kills"],
        "sewerslide": ["suicide"], "suicde": ["suicide"], "sucide": ["suicide"], "suicid": ["suicide"],
        "suiside": ["suicide"], "sui": ["suicide"], "selfharm": ["self", "harm"], "selfharming": ["self", "harming"],
        "od": ["overdose"], "oding": ["overdosing"], "oded": ["overdosed"],
        "meds": ["pills"], "tablets": ["pills"], "painkillers": ["pills"], "sleepingpills": ["pills"],
        "offing": ["killing"], "mself": ["myself"], "meself": ["myself"], "myslef": ["myself"],
        "ded": ["dead"], "kil": ["kill"], "kll": ["kill"], "cutt": ["cut"], "cutted": ["cut"], "cuting": ["cutting"], "hurtin": ["hurting"], "cuttin": ["cutting"], "goin": ["going"],
        "nothin": ["nothing"], "noone": ["nobody"], "everyones": ["everyone"], "every1": ["everyone"],
    ]
}
