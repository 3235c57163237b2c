import Foundation
import LLM
@testable import Memory
import Testing

/// What memory adds to a turn, in-process: the prompt sections, the references, the pattern to raise.
@Suite struct RecallTests {
    static func fact(_ text: String, _ category: FactCategory = .theme, theme: String? = nil, mentions: Int = 1,
                     lastSession: String? = nil, domains: [String] = [], insights: Set<InsightKind> = []) -> RememberedFact {
        RememberedFact(id: UUID(), category: category, content: FactContent(text: text, theme: theme), mentionCount: mentions,
                       lastSessionKey: lastSession, domains: domains, insightKinds: insights)
    }

    static let silent = fact("Stays silent when they disagree with a direction", theme: "staying-silent", mentions: 2, lastSession: "t:10",
                             domains: ["career"])

    @Test func theThirdSessionAThemeComesUpIsAnInsightOnceAndNotTwiceInOneSession() {
        let third = Recall.recollect(message: "I kept quiet again today", domain: "career", memory: TurnMemory(sessionKey: "t:20", facts: [Self.silent]))
        #expect(third.insight?.kind == .pattern)
        #expect(third.insight?.occurrences == 3)
        #expect(third.insight?.text.hasPrefix("This is the third time you've described staying silent") == true)
        #expect(third.sections.first?.title == PromptHeadings.pattern)
        // The session already counted (its in-session summary was extracted): still the second.
        let sameSession = Recall.recollect(message: "I kept quiet again", domain: "career", memory: TurnMemory(sessionKey: "t:10", facts: [Self.silent]))
        #expect(sameSession.insight == nil)
        // Once surfaced, never again; and not when asked for none (a retry).
        let surfaced = Self.fact(Self.silent.content.text, theme: "staying-silent", mentions: 2, insights: [.pattern])
        #expect(Recall.recollect(message: "I kept quiet", domain: "career", memory: TurnMemory(sessionKey: "t:20", facts: [surfaced])).insight == nil)
        #expect(Recall.recollect(message: "I kept quiet", domain: "career", memory: TurnMemory(sessionKey: "t:20", facts: [Self.silent]), insights: false).insight == nil)
        // A message on something else: no insight, no reference.
        let elsewhere = Recall.recollect(message: "What should I cook tonight?", domain: "career", memory: TurnMemory(sessionKey: "t:20", facts: [Self.silent]))
        #expect(elsewhere.insight == nil && elsewhere.references.isEmpty)
    }

    @Test func aThemeAcrossDomainsIsACrossDomainInsight() {
        let recollection = Recall.recollect(message: "I kept quiet at the running club meeting", domain: "fitness",
                                            memory: TurnMemory(sessionKey: "t:20", facts: [Self.silent]))
        #expect(recollection.insight?.kind == .crossDomain)
        #expect(recollection.insight?.domains == ["career", "fitness"])
    }

    @Test func factsAreTheTopThreePerCategoryMostConfidentFirstSoCuttingKeepsTheSurest() {
        // Facts arrive most confident first (the context read orders them).
        let facts = [Self.fact("goal A", .goal), Self.fact("strategy A", .strategy), Self.fact("goal B", .goal), Self.fact("goal C", .goal),
                     Self.fact("goal D", .goal), Self.fact("strategy B", .strategy)]
        let recollection = Recall.recollect(message: "Hello", domain: nil, memory: TurnMemory(sessionKey: "t:0", facts: facts))
        let section = try? #require(recollection.sections.first { $0.priority == PromptAssembler.Priority.longTermFacts })
        #expect(section?.items == ["goal A", "strategy A", "goal B", "goal C", "strategy B"])
    }

    @Test func remembersWhatSharesMeaningWithTheMessageMostRelevantFirst() {
        let summary = TurnMemory.Summary(
            id: UUID(), kind: .session, startedAt: Date(timeIntervalSince1970: 1_700_000_000), domain: "career",
            summary: SessionSummary(topics: ["manager feedback", "strategic"], emotionalArc: "stung throughout", keyInsight: nil, followUps: [],
                                    userQuote: nil, text: "Topics: manager feedback, strategic. Emotional arc: stung throughout.")
        )
        let event = Self.fact("Their manager told them they lack strategic thinking", .event)
        let recollection = Recall.recollect(message: "I want to come across as strategic in my presentation", domain: "career",
                                            memory: TurnMemory(sessionKey: "t:0", facts: [event], summaries: [summary]))
        #expect(recollection.references.map(\.kind) == [.fact, .summary])
        #expect(recollection.references.last?.label == "Nov 14: manager feedback, strategic")
        let relevant = recollection.sections.first { $0.title == PromptHeadings.relevant }
        #expect(relevant?.items.last?.hasPrefix("In the session of Nov 14: Topics: manager feedback") == true)
    }
}

/// The words recall reads: the ASCII shortcut agrees with `CharacterSet.alphanumerics`, and other letters still count.
@Suite struct TextWordsTests {
    @Test func wordScalarsAreTheAlphanumerics() {
        for value in UInt32(0)..<0x80 {
            let scalar = Unicode.Scalar(value)!
            #expect(Text.isWordScalar(scalar) == CharacterSet.alphanumerics.contains(scalar), "\(value)")
        }
        #expect(Text.words("Didn't sleep; café-work, 2 Jobs — Ärger!") == ["didnt", "sleep", "café", "work", "2", "jobs", "ärger"])
    }
}
