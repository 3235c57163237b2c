import Foundation
import LLM
@testable import Memory
import Testing

/// The deterministic writers (the offline model's memory) and the validation of a model's memory answers.
@Suite struct MemoryWritingTests {
    static func transcript(_ said: [String], domain: String? = nil) -> Transcript {
        var messages: [Transcript.Message] = []
        for (index, text) in said.enumerated() {
            messages.append(.init(seq: Int64(index * 2 + 1), role: .user, content: text, at: Date(timeIntervalSince1970: 1_700_000_000 + Double(index * 60))))
            messages.append(.init(seq: Int64(index * 2 + 2), role: .assistant, content: "I hear you. What matters most here?",
                                  at: Date(timeIntervalSince1970: 1_700_000_030 + Double(index * 60))))
        }
        return Transcript(domain: domain, messages: messages)
    }

    /// The facts a set of changes adds, in order.
    static func added(_ changes: [FactExtraction.Change]) -> [(FactCategory, FactContent)] {
        changes.compactMap { change in
            if case .add(let category, let content) = change { return (category, content) }
            return nil
        }
    }

    static let priya = transcript([
        "My manager just told me I lack strategic thinking and I'm stung.",
        "In the planning meeting I stayed quiet even though I disagreed with the roadmap.",
        "I realize I wait for permission before sharing a view.",
        "I'm going to write down one strategic question before each meeting. I feel a bit more hopeful now.",
    ])

    @Test func theOfflineSummaryHasTheDocumentsFieldsFromWhatThePersonSaid() async throws {
        let summary = try await OfflineSummarizer().summarize(Self.priya)
        #expect(summary.topics.first == "staying quiet when disagreeing")
        #expect(summary.topics.contains("strategic"))
        #expect(summary.emotionalArc == "stung -> hopeful")
        #expect(summary.keyInsight?.contains("I realize I wait for permission") == true)
        #expect(summary.followUps == ["they're going to write down one strategic question before each meeting"])
        #expect(summary.userQuote != nil)
        #expect(summary.text.hasPrefix("Topics: staying quiet when disagreeing"))
        #expect(TokenEstimate.count(summary.text) <= 160, "about 100 words at most")
        // Deterministic: the same session, the same summary.
        #expect(try await OfflineSummarizer().summarize(Self.priya) == summary)
        // The coach's words are not the person's: nothing in it comes from the assistant messages.
        #expect(!summary.text.contains("What matters most"))
    }

    @Test func theOfflineExtractorFindsThemesAndTheOtherCategoriesFromSentenceShapes() async throws {
        let session = Self.transcript([
            "My manager just told me that I lack strategic thinking.",
            "I stayed quiet again when they changed the plan.",
            "I work as a product designer at a startup.",
            "My goal is to lead the design review next month.",
            "Running really helps me clear my head.",
            "Sunday evenings makes me anxious about the week.",
        ])
        let summary = try await OfflineSummarizer().summarize(session)
        let changes = try await OfflineFactExtractor().extract(from: session, summary: summary, known: [])
        let added = Self.added(changes)
        #expect(added.count == changes.count)
        let byCategory = Dictionary(grouping: added, by: \.0).mapValues { $0.map(\.1.text) }
        #expect(byCategory[.theme] == ["Stays silent when they disagree with a direction"])
        #expect(added.first { $0.0 == .theme }?.1.theme == "staying-silent")
        #expect(byCategory[.event] == ["Their manager told them they lack strategic thinking"])
        #expect(byCategory[.identity] == ["Works as product designer at a startup"])
        #expect(byCategory[.goal] == ["Wants to lead the design review next month"])
        #expect(byCategory[.strategy] == ["Running helps them"])
        #expect(byCategory[.trigger] == ["Sunday evenings makes them anxious"])
    }

    /// Explicit goals, values and preferences become facts: the probe's "I want to get promoted …, that's my main goal"
    /// was missed after its session ended. A want that is not called a goal is not one.
    @Test func explicitGoalsValuesAndPreferencesBecomeFacts() async throws {
        let session = Self.transcript([
            "I want to get promoted to senior engineer this year, that's my main goal.",
            "I want to scream when the standup runs long.",
            "What matters most to me is being there for my kids.",
            "I'd rather have one hard conversation than weeks of tension.",
            "I plan to run a half marathon in the spring.",
        ])
        let changes = try await OfflineFactExtractor().extract(from: session, summary: try await OfflineSummarizer().summarize(session), known: [])
        let byCategory = Dictionary(grouping: Self.added(changes), by: \.0).mapValues { $0.map(\.1.text) }
        #expect(byCategory[.goal] == ["Wants to get promoted to senior engineer this year", "Wants to run a half marathon in the spring"])
        #expect(byCategory[.identity] == ["Values being there for their kids"])
        #expect(byCategory[.preference] == ["Would rather have one hard conversation than weeks of tension"])
    }

    @Test func aKnownFactIsRepeatedAndANewSlotValueContradictsTheOld() async throws {
        let known: [FactExtraction.Known] = [
            .init(number: 1, category: .identity, content: FactContent(text: "Works as product designer", slot: "occupation")),
            .init(number: 2, category: .theme, content: FactContent(text: "Stays silent when they disagree with a direction", theme: "staying-silent")),
        ]
        let session = Self.transcript(["I kept my mouth shut in the review again.", "I work as a design manager now."])
        let changes = try await OfflineFactExtractor().extract(from: session, summary: try await OfflineSummarizer().summarize(session), known: known)
        #expect(changes.contains(.repeated(2)))
        #expect(changes.contains(.contradicted(1, .identity, FactContent(text: "Works as design manager now", slot: "occupation"))))
        #expect(changes.count == 2)
    }

    @Test(arguments: [
        ("I stayed quiet in the meeting", ["staying-silent"]),
        ("I didn’t speak up when the VP pushed back", ["staying-silent"]),
        ("I don't want to let my team down", ["letting-people-down"]),
        ("Letting my running club down would be awful", ["letting-people-down"]),
        ("It was a quiet morning and I stayed home", []),
        ("Let me down easy, I said, laughing", []),
    ])
    func themesAreRecognisedByPhraseNotByLooseWords(_ text: String, _ expected: [String]) {
        #expect(ThemeLexicon.themes(in: text).map(\.id) == expected)
    }

    /// The lexicon reads a text by looking each word up among the phrases it starts; that finds what trying every
    /// phrase at every word finds, in lexicon order, for texts that say every phrase of every theme (two or three
    /// at a time, some more than once, wildcards filled) and for texts that say none.
    @Test func themesFoundByFirstWordAreThoseOfEveryPhraseTriedEverywhere() {
        let phrases = ThemeLexicon.all.flatMap(\.phrases).map { $0.map { $0 == "*" ? "whole" : $0 }.joined(separator: " ") }
        var texts = ["", "nothing to see here", "let my down", "my team"]
        for (index, phrase) in phrases.enumerated() {
            texts.append("So " + phrase + ", and then " + phrases[(index * 7 + 3) % phrases.count] + " again, " + phrase + ".")
            texts.append(phrases[(index * 13 + 5) % phrases.count] + " " + phrase)
        }
        // Every phrase tried at every word, `*` matching any one word.
        func says(_ words: [String], _ phrase: [String]) -> Bool {
            !phrase.isEmpty && words.count >= phrase.count && (0...(words.count - phrase.count)).contains { start in
                phrase.indices.allSatisfy { phrase[$0] == "*" || words[start + $0] == phrase[$0] }
            }
        }
        for text in texts {
            let words = Text.words(text)
            let everywhere = ThemeLexicon.all.filter { theme in theme.phrases.contains { says(words, $0) } }
            #expect(ThemeLexicon.themes(in: text).map(\.id) == everywhere.map(\.id), "\(text)")
        }
        #expect(texts.filter { !ThemeLexicon.themes(in: $0).isEmpty }.count == phrases.count * 2)
    }

    @Test func aModelsSummaryIsValidatedAndItsProseAroundTheJSONIgnored() async throws {
        let answer = #"Sure! ```json {"topics": ["manager feedback", " strategy\n"], "emotionalArc": "stung -> steadier", "keyInsight": null, "followUps": ["ask for an example"], "userQuote": "I don't even know what that means"} ```"#
        let summary = try await ModelSummarizer { _ in answer }.summarize(Self.priya)
        #expect(summary.topics == ["manager feedback", "strategy"])
        #expect(summary.emotionalArc == "stung -> steadier")
        #expect(summary.keyInsight == nil)
        #expect(summary.text.contains("Follow-ups: ask for an example."))
        await #expect(throws: ModelWriting.Invalid.self) { try await ModelSummarizer { _ in "I'd rather not." }.summarize(Self.priya) }
        await #expect(throws: ModelWriting.Invalid.self) { try await ModelSummarizer { _ in #"{"topics": []}"# }.summarize(Self.priya) }
    }

    @Test func aModelsFactChangesReferToSmallNumbersAndInvalidOnesAreDropped() async throws {
        let known: [FactExtraction.Known] = [.init(number: 1, category: .goal, content: FactContent(text: "Wants to run a half marathon"))]
        let answer = """
            {"facts": [
              {"op": "new", "category": "theme", "text": "Worries about letting people down"},
              {"op": "repeat", "id": 1},
              {"op": "repeat", "id": 7},
              {"op": "replace", "id": 1, "category": "goal", "text": "Wants to run a full marathon"},
              {"op": "new", "category": "hobby", "text": "Likes chess"},
              {"op": "new", "category": "event", "text": ""},
              {"op": "delete", "id": 1}
            ]}
            """
        let extractor = ModelFactExtractor { request in
            #expect(request.messages.first?.content.contains("[1] (goal) Wants to run a half marathon") == true)
            return answer
        }
        let changes = try await extractor.extract(from: Self.priya, summary: try await OfflineSummarizer().summarize(Self.priya), known: known)
        #expect(changes == [
            .add(.theme, FactContent(text: "Worries about letting people down", theme: "letting-people-down")),
            .repeated(1),
            .contradicted(1, .goal, FactContent(text: "Wants to run a full marathon")),
        ])
        let nothingValid = ModelFactExtractor { _ in #"{"facts": [{"op": "repeat", "id": 3}]}"# }
        await #expect(throws: ModelWriting.Invalid.self) { try await nothingValid.extract(from: Self.priya, summary: try await OfflineSummarizer().summarize(Self.priya), known: known) }
    }
}

extension MemoryWritingTests {
    @Test func factsComeFromClausesOfLongerMessages() async throws {
        let session = Self.transcript([
            "Session 3, turn 0: I stayed quiet in the meeting again when plans changed.",
            "My goal is to get better at sleep this month, thread 3.",
            "Honestly sleep really helps me when the week gets heavy.",
        ])
        let changes = try await OfflineFactExtractor().extract(from: session, summary: try await OfflineSummarizer().summarize(session), known: [])
        #expect(changes == [
            .add(.theme, FactContent(text: "Stays silent when they disagree with a direction", theme: "staying-silent")),
            .add(.goal, FactContent(text: "Wants to get better at sleep this month")),
            .add(.strategy, FactContent(text: "Honestly sleep helps them")),
        ])
    }
}
