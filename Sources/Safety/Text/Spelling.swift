/// Typo repair for the handful of words the crisis cues hinge on: a word one edit away from one of them
/// (a letter missing, extra, changed or two swapped) is read as that word. Deliberately narrow: the first
/// letter must match, the word must be six letters or more, and real words that sit one edit away
/// ("hunting", "hurling") are left alone.
enum Spelling {
    static let targets: [String] = [
        "suicide", "suicidal", "myself", "overdose", "overdosed", "overdosing", "killing", "cutting", "hurting",
        "harming", "himself", "herself", "themselves", "anymore", "goodbye", "goodbyes", "abusive", "strangled",
        "threatened", "threatening", "threatens", "nobody", "everyone", "worthless", "hopeless",
    ]

    /// Real words near a target, and the targets themselves.
    static let known: Set<String> = Set(targets).union([
        "hunting", "hurling", "hurtling", "harping", "cuttings", "dyeing", "suicides", "killings", "strangle",
        "strangles", "threaten", "overdoses", "abuse", "abuser", "abuses",
    ])

    static func correct(_ word: String) -> String? {
        // A word has no more letters than bytes: most words are ruled out before any `Character` is read.
        guard word.utf8.count >= 6, word.count >= 6, !known.contains(word), let first = word.first,
              let candidates = targetsByFirstLetter[first] else { return nil }
        let letters = Array(word)
        for (target, targetLetters) in candidates where abs(targetLetters.count - letters.count) <= 1 {
            if oneEditApart(letters, targetLetters) { return target }
        }
        return nil
    }

    /// ``targets`` by first letter, in their order, each with its letters.
    private static let targetsByFirstLetter: [Character: [(String, [Character])]] =
        Dictionary(grouping: targets.map { ($0, Array($0)) }, by: { $0.1[0] })

    /// One insertion, deletion, substitution or swap of neighbours turns `a` into `b`.
    static func oneEditApart(_ a: [Character], _ b: [Character]) -> Bool {
        if a == b { return false }
        var i = 0
        while i < min(a.count, b.count), a[i] == b[i] { i += 1 }
        if a.count == b.count {
            if a[(i + 1)...] == b[(i + 1)...] { return true }
            return i + 1 < a.count && a[i] == b[i + 1] && a[i + 1] == b[i] && a[(i + 2)...] == b[(i + 2)...]
        }
        return a.count > b.count ? a[(i + 1)...] == b[i...] : a[i...] == b[(i + 1)...]
    }
}
