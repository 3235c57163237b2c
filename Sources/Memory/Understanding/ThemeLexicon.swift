/// The recurring patterns Hearth recognises without a model: each theme has a stable id, how a fact states
/// it, how an insight names it to the person, and the phrases that express it (`*` stands for any one word).
/// Phrases are matched on ``Text/words(_:)``, so apostrophes and case do not matter.
///
/// Both fact extractors tag theme facts with these ids (the model's facts are matched against the phrases),
/// and the chat turn matches each message against them: that is how "the third time" is recognised.
public struct Theme: Sendable, Equatable {
    public let id: String
    /// Third person: the fact's text.
    public let fact: String
    /// Second person, after "you've described": the insight's words.
    public let described: String
    /// Short, for a summary's topics.
    public let topic: String
    let phrases: [[String]]

    init(_ id: String, fact: String, described: String, topic: String, phrases: [String]) {
        self.id = id
        self.fact = fact
        self.described = described
        self.topic = topic
        self.phrases = phrases.map { Text.words($0.replacingOccurrences(of: "*", with: " wildcardword ")).map { $0 == "wildcardword" ? "*" : $0 } }
    }
}

public enum ThemeLexicon {
    /// The themes `text` expresses, in lexicon order.
    public static func themes(in text: String) -> [Theme] {
        let words = Text.words(text)
        // Every message of every turn is read for themes: each word is looked up once among the phrases it can
        // start, instead of every phrase being tried at every word (docs/performance-notes.md).
        var found = Set<Int>()
        for start in words.indices {
            for first in [words[start], "*"] {
                for (theme, phrase) in phrasesByFirstWord[first, default: []] where !found.contains(theme) && matches(words, phrase, at: start) {
                    found.insert(theme)
                }
            }
        }
        return all.indices.filter(found.contains).map { all[$0] }
    }

    /// Each phrase (with its theme's index in ``all``) under the word it starts with (`*`: any word).
    private static let phrasesByFirstWord: [String: [(theme: Int, phrase: [String])]] = Dictionary(
        grouping: all.indices.flatMap { theme in all[theme].phrases.filter { !$0.isEmpty }.map { (theme, $0) } },
        by: { $0.1[0] }
    )

    public static func theme(id: String) -> Theme? {
        all.first { $0.id == id }
    }

    /// Whether `phrase` is the words from `start` on.
    private static func matches(_ words: [String], _ phrase: [String], at start: Int) -> Bool {
        guard start + phrase.count <= words.count else { return false }
        for (offset, part) in phrase.enumerated() where part != "*" && words[start + offset] != part { return false }
        return true
    }

    public static let all: [Theme] = [
        Theme("staying-silent", fact: "Stays silent when they disagree with a direction",
              described: "staying silent when you disagree with a direction", topic: "staying quiet when disagreeing",
              phrases: ["stayed quiet", "stay quiet", "stays quiet", "staying quiet", "stays silent", "kept quiet", "keep quiet", "keeping quiet",
                        "stayed silent", "stay silent", "staying silent", "kept silent", "didn't speak up", "did not speak up",
                        "don't speak up", "never speak up", "couldn't speak up", "didn't say anything", "said nothing",
                        "bit my tongue", "held my tongue", "kept my mouth shut", "didn't push back", "never push back"]),
        Theme("letting-people-down", fact: "Worries about letting people down",
              described: "not wanting to let people down", topic: "fear of letting people down",
              phrases: ["let people down", "letting people down", "let them down", "letting them down", "let anyone down",
                        "let everyone down", "let my * down", "letting my * down", "let my * * down", "letting my * * down", "let the * down", "letting the * down",
                        "let him down", "let her down", "let you down", "disappoint people", "disappointing people"]),
        Theme("perfectionism", fact: "Holds themselves to perfectionist standards",
              described: "holding yourself to perfect standards", topic: "perfectionism",
              phrases: ["perfectionist", "perfectionism", "has to be perfect", "have to be perfect", "needs to be perfect",
                        "need to be perfect", "never good enough", "not good enough"]),
        Theme("self-criticism", fact: "Is hard on themselves",
              described: "being hard on yourself", topic: "self-criticism",
              phrases: ["hard on myself", "beat myself up", "beating myself up", "beat myself", "hate myself",
                        "so stupid", "such an idiot", "all my fault"]),
        Theme("overwork", fact: "Struggles to keep work from taking over",
              described: "letting work take over", topic: "overwork and boundaries",
              phrases: ["working late", "worked late", "work late", "overworking", "overwork", "can't say no", "cannot say no",
                        "burned out", "burnt out", "burnout", "working weekends", "worked all weekend"]),
        Theme("impostor", fact: "Doubts that they belong in their role",
              described: "doubting that you belong", topic: "impostor feelings",
              phrases: ["impostor", "imposter", "don't belong", "like a fraud", "not qualified", "don't deserve"]),
        Theme("conflict-avoidance", fact: "Avoids conflict",
              described: "steering away from conflict", topic: "avoiding conflict",
              phrases: ["avoid conflict", "avoiding conflict", "avoided conflict", "hate confrontation", "avoid confrontation",
                        "keep the peace", "keeping the peace"]),
        Theme("people-pleasing", fact: "Puts other people's wishes before their own",
              described: "putting everyone else's wishes first", topic: "people-pleasing",
              phrases: ["people pleaser", "people pleasing", "please everyone", "make everyone happy", "keep everyone happy"]),
        Theme("sleep", fact: "Has trouble sleeping",
              described: "losing sleep", topic: "sleep",
              phrases: ["can't sleep", "couldn't sleep", "trouble sleeping", "insomnia", "awake at night", "lying awake",
                        "slept badly", "barely slept"]),
        Theme("procrastination", fact: "Puts important things off",
              described: "putting important things off", topic: "procrastination",
              phrases: ["procrastinate", "procrastinating", "procrastination", "putting it off", "put it off", "keep delaying"]),
        Theme("comparison", fact: "Compares themselves with others",
              described: "comparing yourself with others", topic: "comparison",
              phrases: ["compare myself", "comparing myself", "better than me", "everyone else is ahead"]),
        Theme("job-security", fact: "Worries about job security",
              described: "worrying about your job", topic: "job security",
              phrases: ["lose my job", "losing my job", "get fired", "getting fired", "laid off", "layoffs", "job security"]),
    ]
}
