import Foundation

/// Creator text with its disguises taken off, so the screening reads what a model would read: invisible
/// characters dropped, look-alike letters from other scripts and fullwidth or "mathematical" letters read as
/// Latin, HTML entities and %-escapes decoded, digits inside words read as the letters they stand in for
/// ("1gn0re"), words spelt out letter by letter or cut by marks ("i g n o r e", "ign-ore", "in.struc.tions")
/// joined again, and what hides in markup comments or base64 read as text of its own.
struct RevealedText: Sendable {
    /// The readable text.
    let text: String
    /// Other texts found inside: decoded base64 and the bodies of markup comments.
    let hidden: [String]
    /// What was used to hide something: "zero-width", "homoglyphs", "markup-comment", "base64", "encoded",
    /// "split-word". Plain text has none; each is a reason in itself when it hides a watched word.
    let disguises: Set<String>

    init(_ raw: String, watched: Set<String>) {
        var disguises: Set<String> = []
        var hidden: [String] = []

        let (visible, hidLetters) = Self.removeInvisible(raw)
        if hidLetters { disguises.insert("zero-width") }
        var text = visible

        let (uncommented, comments) = Self.extractComments(text)
        if !comments.isEmpty {
            disguises.insert("markup-comment")
            hidden += comments
            text = uncommented
        }
        let decoded = Self.decodeEscapes(text)
        if decoded != text { disguises.insert("encoded") }
        text = decoded

        let latin = Self.latinise(text)
        if latin.changedScript { disguises.insert("homoglyphs") }
        text = latin.text

        for segment in Self.base64Segments(text) {
            hidden.append(segment)
            disguises.insert("base64")
        }
        let joined = Self.joinSplitWords(text, watched: watched)
        if joined != text { disguises.insert("split-word") }
        self.text = joined
        self.hidden = hidden
        self.disguises = disguises
    }

    // MARK: Invisible characters

    /// Zero-width and other format characters (U+200B…U+200F, U+2060…, U+FEFF, soft hyphen, tag characters):
    /// nothing a person sees, everything a filter trips over.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format || scalar.value == 0x034F
    }

    /// The text without invisible characters; `hidLetters` when one sat between two letters, which is how a word
    /// is kept from matching. The joiner and variation selectors of emoji sequences stay: they hide nothing.
    static func removeInvisible(_ text: String) -> (String, hidLetters: Bool) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: isInvisible) else { return (text, false) }
        var kept = String.UnicodeScalarView()
        var hidLetters = false
        for (index, scalar) in scalars.enumerated() {
            if scalar.value == 0x200D || (0xFE00...0xFE0F).contains(scalar.value) || !isInvisible(scalar) {
                kept.append(scalar)
                continue
            }
            let before = scalars[..<index].last { !isInvisible($0) }
            let after = scalars[(index + 1)...].first { !isInvisible($0) }
            if let before, let after, before.properties.isAlphabetic, after.properties.isAlphabetic { hidLetters = true }
        }
        return (String(kept), hidLetters)
    }

    // MARK: Markup comments

    /// `<!-- … -->`, `[//]: # (…)` and `/* … */`: a persona has no need of text its readers cannot see.
    static let commentPatterns: [NSRegularExpression] = [
        #"<!--([\s\S]*?)(-->|$)"#, #"\[//\]:\s*#\s*\(([^)]*)\)"#, #"/\*([\s\S]*?)\*/"#,
    ].map { try! NSRegularExpression(pattern: $0) }

    static func extractComments(_ text: String) -> (String, [String]) {
        guard text.contains("<!--") || text.contains("[//]") || text.contains("/*") else { return (text, []) }
        var rest = text
        var bodies: [String] = []
        for pattern in commentPatterns {
            let range = NSRange(rest.startIndex..., in: rest)
            for match in pattern.matches(in: rest, range: range) {
                if let body = Range(match.range(at: 1), in: rest) { bodies.append(String(rest[body])) }
            }
            rest = pattern.stringByReplacingMatches(in: rest, range: NSRange(rest.startIndex..., in: rest), withTemplate: " ")
        }
        return (rest, bodies)
    }

    // MARK: Escapes

    static let entity = try! NSRegularExpression(pattern: #"&#(x?)([0-9a-fA-F]{1,6});"#)
    static let percent = try! NSRegularExpression(pattern: #"(%[0-9a-fA-F]{2}){2,}"#)

    /// `&#105;`/`&#x69;` and runs of `%69%67` as the characters they stand for.
    static func decodeEscapes(_ text: String) -> String {
        guard text.contains("&#") || text.contains("%") else { return text }
        var out = text
        let ns = out as NSString
        var pieces: [(NSRange, String)] = []
        for match in entity.matches(in: out, range: NSRange(location: 0, length: ns.length)) {
            let hex = ns.substring(with: match.range(at: 1)) == "x"
            if let value = UInt32(ns.substring(with: match.range(at: 2)), radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value) {
                pieces.append((match.range, String(Character(scalar))))
            }
        }
        for (range, replacement) in pieces.reversed() { out = (out as NSString).replacingCharacters(in: range, with: replacement) }
        let withPercent = out as NSString
        var decoded: [(NSRange, String)] = []
        for match in percent.matches(in: out, range: NSRange(location: 0, length: withPercent.length)) {
            if let text = withPercent.substring(with: match.range).removingPercentEncoding { decoded.append((match.range, text)) }
        }
        for (range, replacement) in decoded.reversed() { out = (out as NSString).replacingCharacters(in: range, with: replacement) }
        return out
    }

    // MARK: Look-alike letters

    /// Letters of other scripts that look Latin (Cyrillic, Greek, a few IPA), mapped to the Latin they mimic.
    /// Fullwidth and mathematical letters need no table: compatibility normalisation (NFKC) reads them.
    static let confusables: [Unicode.Scalar: Character] = {
        let pairs: [(String, Character)] = [
            ("аɑα", "a"), ("в", "b"), ("сϲ", "c"), ("ԁ", "d"), ("еєε", "e"), ("һ", "h"), ("іїιɩ", "i"), ("ј", "j"),
            ("кκ", "k"), ("ӏ", "l"), ("м", "m"), ("пη", "n"), ("оοσ", "o"), ("рρ", "p"), ("ԛ", "q"), ("г", "r"),
            ("ѕ", "s"), ("тτ", "t"), ("υ", "u"), ("ѵν", "v"), ("ԝω", "w"), ("хχ", "x"), ("уγ", "y"), ("ᴢ", "z"),
            ("АΑ", "A"), ("ВΒ", "B"), ("СϹ", "C"), ("ЕΕ", "E"), ("НΗ", "H"), ("ІΙ", "I"), ("Ј", "J"), ("КΚ", "K"),
            ("МΜ", "M"), ("ОΟ", "O"), ("РΡ", "P"), ("ЅЅ", "S"), ("ТΤ", "T"), ("ХΧ", "X"), ("УΥ", "Y"), ("ΖZ", "Z"),
        ]
        var map: [Unicode.Scalar: Character] = [:]
        for (letters, latin) in pairs { for scalar in letters.unicodeScalars { map[scalar] = latin } }
        return map
    }()

    static let styledLetters: [ClosedRange<UInt32>] = [0xFF21...0xFF5A, 0x1D400...0x1D7FF, 0x24B6...0x24E9, 0x1F130...0x1F189, 0x1D00...0x1D2B]

    /// NFKC, then look-alikes as Latin; `changedScript` when a word mixed scripts or was written in look-alikes
    /// only (a Russian sentence in Cyrillic is left as it is: only words that become Latin count).
    static func latinise(_ text: String) -> (text: String, changedScript: Bool) {
        let compatible = text.precomposedStringWithCompatibilityMapping
        // Fullwidth, mathematical and enclosed letters are disguises; "™" or "ﬁ" becoming plain letters is not.
        var changed = text.unicodeScalars.contains { scalar in
            Self.styledLetters.contains { $0.contains(scalar.value) } && scalar.properties.isAlphabetic
        }
        guard compatible.unicodeScalars.contains(where: { !$0.isASCII }) else { return (compatible, changed) }
        // In text mostly written in another script, a word of look-alike letters only is just a word of it.
        let letters = compatible.unicodeScalars.filter(\.properties.isAlphabetic)
        let mostlyLatin = letters.filter(\.isASCII).count * 2 >= letters.count
        var words: [String] = []
        for word in compatible.split(separator: " ", omittingEmptySubsequences: false) {
            let scalars = word.unicodeScalars
            let mapped = scalars.map { confusables[$0].map(String.init) ?? String($0) }.joined()
            let hasLatin = scalars.contains { $0.isASCII && $0.properties.isAlphabetic }
            let allMapped = scalars.allSatisfy { !$0.properties.isAlphabetic || $0.isASCII || confusables[$0] != nil }
            if mapped != String(word), hasLatin || (allMapped && mostlyLatin) {
                words.append(mapped)
                changed = true
            } else {
                words.append(String(word))
            }
        }
        return (words.joined(separator: " "), changed)
    }

    // MARK: base64

    static let base64Run = try! NSRegularExpression(pattern: #"[A-Za-z0-9+/]{16,}={0,2}"#)

    /// Runs that decode, as base64, to mostly printable text of a few words: what a creator hides an
    /// instruction in. Ordinary long words and tokens do not decode to text.
    static func base64Segments(_ text: String) -> [String] {
        let ns = text as NSString
        return base64Run.matches(in: text, range: NSRange(location: 0, length: ns.length)).compactMap { match in
            var run = ns.substring(with: match.range)
            while run.count % 4 != 0 { run += "=" }
            guard let data = Data(base64Encoded: run), data.count >= 8, let decoded = String(data: data, encoding: .utf8) else { return nil }
            let printable = decoded.unicodeScalars.filter { $0.properties.isAlphabetic || $0 == " " }.count
            guard Double(printable) / Double(decoded.unicodeScalars.count) > 0.8, decoded.contains(" ") else { return nil }
            return decoded
        }
    }

    // MARK: Split words

    /// Digits that stand in for letters inside a word ("1gn0re", "pr0mpt").
    static let leet: [Character: Character] = ["0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"]

    /// Rejoins what was cut apart: runs of single letters ("i g n o r e"), and pieces separated by marks or
    /// spaces whose join is a watched word ("ign-ore", "in struc tions", "sys.tem"). Only joins that spell a
    /// watched word count, so "a b c" and "e-mail" stay as they were; leetspeak is read inside such words too.
    static func joinSplitWords(_ text: String, watched: Set<String>) -> String {
        let pieces = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
        var out: [String] = []
        var joinedAny = false
        var index = 0
        while index < pieces.count {
            var matched = false
            // The longest run of up to 12 short pieces whose letters spell a watched word.
            for length in stride(from: min(12, pieces.count - index), through: 1, by: -1) {
                let run = pieces[index..<(index + length)]
                if length > 1, run.contains(where: { $0.count > 6 }) { continue }
                // One piece counts only when marks or digits sit between its letters ("ign-ore", "1gn0re").
                if length == 1, run.first!.trimmingCharacters(in: .punctuationCharacters).allSatisfy(\.isLetter) { continue }
                let letters = String(run.joined().lowercased().compactMap { character -> Character? in
                    character.isLetter ? character : leet[character]
                })
                if letters.count >= 4, watched.contains(letters) {
                    out.append(letters)
                    index += length
                    matched = true
                    joinedAny = true
                    break
                }
            }
            if !matched {
                out.append(pieces[index])
                index += 1
            }
        }
        return joinedAny ? out.joined(separator: " ") : text
    }
}
