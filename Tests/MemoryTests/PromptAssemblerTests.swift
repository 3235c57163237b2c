import LLM
import Memory
import Testing

@Suite struct PromptAssemblerTests {
    static func section(_ title: String, _ priority: Int, budget: Int = 1000, items: Int, words: Int = 5) -> PromptSection {
        PromptSection(title: title, priority: priority, budget: budget,
                      items: (0..<items).map { index in "\(title) \(index) " + String(repeating: "word ", count: words) })
    }

    static func history(_ count: Int, length: Int = 20) -> [ChatMessage] {
        (0..<count).map { ChatMessage(role: $0.isMultiple(of: 2) ? .user : .assistant, content: "m\($0) " + String(repeating: "x", count: length)) }
    }

    @Test func sectionsFollowTheInstructionsInPriorityOrderAndRecentMessagesPrecedeTheNewOne() {
        let assembler = PromptAssembler()
        let sections = [Self.section("Lately", 7, items: 1), Self.section("Who", 5, items: 2), Self.section("Empty", 6, items: 0)]
        let (request, kept) = assembler.assemble(instructions: "Be kind.", sections: sections, history: Self.history(14), message: "Now")
        #expect(request.system.hasPrefix("Be kind.\n\n## Who\n- Who 0"))
        #expect(request.system.firstRange(of: "## Who")!.lowerBound < request.system.firstRange(of: "## Lately")!.lowerBound)
        #expect(!request.system.contains("Empty"))
        #expect(kept.map(\.title) == ["Lately", "Who"])
        // The short-term tier: the last 10 earlier messages in full, then the new one.
        #expect(request.messages.count == 11)
        #expect(request.messages.first?.content.hasPrefix("m4 ") == true)
        #expect(request.messages.last == ChatMessage(role: .user, content: "Now"))
    }

    @Test func eachSectionIsCutToItsOwnBudgetKeepingItsFirstItems() {
        let (_, kept) = PromptAssembler().assemble(
            instructions: "I", sections: [Self.section("Facts", 6, budget: 40, items: 10)], history: [], message: "Hi"
        )
        let items = kept.first?.items ?? []
        #expect(items.count > 0 && items.count < 10)
        #expect(items == Array(Self.section("Facts", 6, items: 10).items.prefix(items.count)))
    }

    @Test func overTheInputBudgetTheLeastImportantGoFirstAndInstructionsAndTheMessageNever() {
        var assembler = PromptAssembler()
        let sections = [
            Self.section("Summaries", PromptAssembler.Priority.summaries, items: 5, words: 40),
            Self.section("Lately", PromptAssembler.Priority.dynamicContext, items: 5, words: 40),
            Self.section("Facts", PromptAssembler.Priority.longTermFacts, items: 5, words: 40),
            Self.section("Who", PromptAssembler.Priority.staticContext, items: 5, words: 40),
        ]
        let instructions = String(repeating: "rule ", count: 200) // ~250 tokens
        func assemble(budget: Int) -> (CompletionRequest, [String: Int]) {
            assembler.budgets.inputTokens = budget
            let (request, kept) = assembler.assemble(instructions: instructions, sections: sections, history: Self.history(6), message: "Help")
            return (request, Dictionary(uniqueKeysWithValues: kept.map { ($0.title, $0.items.count) }))
        }
        #expect(assemble(budget: 100_000).1 == ["Summaries": 5, "Lately": 5, "Facts": 5, "Who": 5])
        // A little over: summaries shrink first, and nothing else does.
        let full = TokenEstimate.count(assemble(budget: 100_000).0)
        #expect(assemble(budget: full - 30).1 == ["Summaries": 4, "Lately": 5, "Facts": 5, "Who": 5])
        // Tighter: summaries and the dynamic context are gone before facts lose anything.
        let counts = assemble(budget: full - 700).1
        #expect(counts["Summaries"] == nil && counts["Lately"] == nil && counts["Facts"] != nil && counts["Who"] == 5)
        // Far too small: every section, then the older messages go; the instructions and the new message stay.
        let (tiny, left) = assemble(budget: 10)
        #expect(left.isEmpty)
        #expect(tiny.system == instructions)
        #expect(tiny.messages == [ChatMessage(role: .user, content: "Help")])
    }

    @Test func longRecentMessagesFillTheShortTermBudgetBeforeTenDo() {
        let (request, _) = PromptAssembler().assemble(instructions: "I", sections: [], history: Self.history(10, length: 4000), message: "Hi")
        // Each earlier message is about 1,000 tokens; 4,000 tokens hold three of them.
        #expect(request.messages.count == 4)
    }

    @Test func theProfileBecomesTheStaticAndDynamicContext() throws {
        var profile = ContextProfile()
        try profile.apply([
            "name": .set(.text("Priya Raman")), "preferredName": .set(.text("Priya")), "age": .set(.number(28)),
            "goals": .set(.list(["sound strategic", "speak up"])), "communicationStyle": .set(.text("direct")),
            "topicsToAvoid": .set(.list(["my ex"])), "currentStressors": .set(.list(["design review"])),
        ])
        let sections = profile.promptSections
        #expect(sections.map(\.priority) == [PromptAssembler.Priority.staticContext, PromptAssembler.Priority.dynamicContext])
        #expect(sections[0].items == [
            "Name: Priya Raman (goes by Priya)", "Age: 28", "Goals: sound strategic; speak up",
            "Prefers a direct coaching style", "Topics to avoid unless they raise them: my ex",
        ])
        #expect(sections[1].items == ["Current stressors: design review"])
        #expect(ContextProfile().promptSections.allSatisfy { $0.items.isEmpty })
    }
}
