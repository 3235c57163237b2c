/// The summarizer without a model: deterministic, good enough for the demo and the tests. Topics are the
/// recognised themes plus the person's most repeated words; the emotional arc is the feeling words of their
/// first and last messages; the key insight is a sentence where they realise something; follow-ups are what
/// they said they will do; their words are their most feeling-laden sentence.
public struct OfflineSummarizer: SessionSummarizer {
    public init() {}

    public func summarize(_ transcript: Transcript) async throws -> SessionSummary {
        let said = transcript.userText
        let sentences = said.flatMap(Text.sentences)

        var topics = said.flatMap(ThemeLexicon.themes(in:)).map(\.topic)
        var counts: [String: Int] = [:]
        for word in said.flatMap({ Text.words($0) }) where word.count >= 5 && !Text.stopwords.contains(word) {
            counts[word, default: 0] += 1
        }
        for (word, _) in counts.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) where topics.count < 4 {
            if !topics.contains(where: { $0.contains(word) }) { topics.append(word) }
        }
        topics = Array(Text.unique(topics).prefix(5))

        let feelings = said.compactMap(Self.feeling)
        let arc = switch (feelings.first, feelings.last) {
        case let (first?, last?) where feelings.count > 1: "\(first) -> \(last)"
        case let (only?, _): "\(only) throughout"
        default: "steady"
        }
        let normalized = sentences.map { (sentence: $0, words: Text.words($0).joined(separator: " ")) }
        let insight = normalized.first { said in Self.realisations.contains(where: said.words.contains) }?.sentence
        let followUps = normalized.filter { said in Self.commitments.contains(where: said.words.hasPrefix) }.map(\.sentence)
        let quote = sentences.filter { $0.split(separator: " ").count <= 30 }
            .max { (Self.feeling($0) == nil ? 0 : 1, $0.count) < (Self.feeling($1) == nil ? 0 : 1, $1.count) }

        let keyInsight = insight.map { "They realised: \"\($0)\"." }
        let actions = followUps.prefix(3).map { Text.thirdPerson($0) }
        return SessionSummary(topics: topics, emotionalArc: arc, keyInsight: keyInsight, followUps: Array(actions), userQuote: quote)
    }

    /// The strongest feeling word in a message, as a state ("stung", "calmer").
    static func feeling(_ text: String) -> String? {
        Text.words(text).lazy.compactMap { feelings[$0] }.first
    }

    static let feelings: [String: String] = [
        "stung": "stung", "hurt": "hurt", "anxious": "anxious", "anxiety": "anxious", "stressed": "stressed",
        "stress": "stressed", "overwhelmed": "overwhelmed", "frustrated": "frustrated", "angry": "angry",
        "sad": "sad", "worried": "worried", "nervous": "nervous", "scared": "scared", "afraid": "afraid",
        "embarrassed": "embarrassed", "exhausted": "exhausted", "tired": "tired", "stuck": "stuck", "lost": "lost",
        "confused": "confused", "calm": "calm", "calmer": "calmer", "better": "better", "relieved": "relieved",
        "hopeful": "hopeful", "excited": "excited", "proud": "proud", "clearer": "clearer", "grateful": "grateful",
        "motivated": "motivated", "confident": "confident", "happy": "happy", "good": "good",
    ]

    static let realisations = ["i realize", "i realise", "i guess", "i see now", "maybe i", "i think the real", "it hit me", "i notice"]
    static let commitments = ["i will", "ill ", "im going to", "i am going to", "i want to try", "next time i", "i plan to", "tomorrow i"]
}
