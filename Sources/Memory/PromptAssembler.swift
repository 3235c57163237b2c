import LLM

/// A block of remembered context for the prompt: items in order of importance, a token budget, and a priority
/// (lower is more important) that decides what goes first when the whole prompt is over budget.
public struct PromptSection: Sendable, Equatable {
    public let title: String
    public let priority: Int
    public let budget: Int
    public var items: [String]

    public init(title: String, priority: Int, budget: Int, items: [String]) {
        self.title = title
        self.priority = priority
        self.budget = budget
        self.items = items
    }
}

/// Builds one turn's request from the memory document's tiers, within its budgets (docs/api.md, "How the
/// prompt is built").
///
/// Priority, most important first (the document's `ContextPriority`): instructions and safety, the current
/// message, recent messages, who the person is (static context), long-term facts, how they are doing lately
/// (dynamic context), session summaries. Each section is first cut to its own budget; if the whole input is
/// still over `inputBudget`, items go from the least important section first, then the oldest recent messages.
/// The instructions and the current message are never cut. Tokens are counted by ``TokenEstimate``.
public struct PromptAssembler: Sendable {
    public struct Budgets: Sendable {
        /// Recent messages kept in full (the short-term tier): at most this many, within `recentTokens`.
        public var recentMessages = 10
        public var recentTokens = 4000
        /// The whole input: system prompt, sections and messages.
        public var inputTokens = 10_000

        public init() {}
    }

    /// Priorities of the memory document (1–3 are the instructions, safety and the current message).
    public enum Priority {
        public static let recentMessages = 4
        public static let staticContext = 5
        public static let longTermFacts = 6
        public static let dynamicContext = 7
        public static let summaries = 8
    }

    public var budgets = Budgets()

    public init() {}

    /// The request, and the sections as they were kept (for the memory-reference event and the debug view).
    public func assemble(instructions: String, sections: [PromptSection], history: [ChatMessage], message: String) -> (CompletionRequest, [PromptSection]) {
        var kept = sections.map(Self.cut)
        var recent: [ChatMessage] = []
        var recentTokens = 0
        for earlier in history.reversed() where recent.count < budgets.recentMessages {
            let cost = Self.tokens(earlier)
            if recentTokens + cost > budgets.recentTokens { break }
            recent.insert(earlier, at: 0)
            recentTokens += cost
        }
        let current = ChatMessage(role: .user, content: message)
        let fixed = TokenEstimate.count(instructions) + Self.tokens(current)
        func total() -> Int { fixed + recentTokens + kept.reduce(0) { $0 + Self.tokens($1) } }
        // Over budget: the least important section loses its last item first; recent messages go last, oldest first.
        while total() > budgets.inputTokens {
            if let index = kept.indices.filter({ !kept[$0].items.isEmpty }).max(by: { kept[$0].priority < kept[$1].priority }),
               kept[index].priority > Priority.recentMessages {
                kept[index].items.removeLast()
            } else if !recent.isEmpty {
                recentTokens -= Self.tokens(recent.removeFirst())
            } else if let index = kept.indices.first(where: { !kept[$0].items.isEmpty }) {
                kept[index].items.removeLast()
            } else {
                break
            }
        }
        kept = kept.filter { !$0.items.isEmpty }
        let system = ([instructions] + kept.sorted { $0.priority < $1.priority }.map(Self.render)).joined(separator: "\n\n")
        return (CompletionRequest(system: system, messages: recent + [current]), kept)
    }

    /// A section cut to its own budget: items in order while they fit.
    static func cut(_ section: PromptSection) -> PromptSection {
        var cut = section
        cut.items = []
        var used = TokenEstimate.count(section.title)
        for item in section.items {
            let cost = TokenEstimate.count(item) + 1
            if used + cost > section.budget { break }
            cut.items.append(item)
            used += cost
        }
        return cut
    }

    static func render(_ section: PromptSection) -> String {
        "## \(section.title)\n" + section.items.map { "- \($0)" }.joined(separator: "\n")
    }

    static func tokens(_ section: PromptSection) -> Int {
        section.items.isEmpty ? 0 : TokenEstimate.count(render(section))
    }

    static func tokens(_ message: ChatMessage) -> Int {
        TokenEstimate.count(message.content) + 4
    }
}
