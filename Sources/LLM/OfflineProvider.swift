import Foundation

/// The built-in model: no network, no key, no cost. It writes a short, warm coaching reply to the last user
/// message — it acknowledges, reflects the person's own words back, and asks one open question — and streams
/// it word by word at a human reading pace. Deterministic: the same conversation gets the same reply.
/// It reports no token counts (it has no tokenizer), so its usage rows are marked estimated.
///
/// It is what Hearth runs on when no provider is configured, so the product works out of the box; every
/// reply is labelled `offline` and costs nothing.
public struct OfflineProvider: LLMProvider {
    public let kind = "offline"
    public let model = "hearth-offline-1"
    /// Pause between streamed words.
    let pace: Duration

    public init(pace: Duration = .milliseconds(35)) {
        self.pace = pace
    }

    public func stream(_ request: CompletionRequest) -> AsyncThrowingStream<CompletionEvent, any Error> {
        let reply = Self.reply(to: request)
        let pace = self.pace
        return AsyncThrowingStream { continuation in
            let task = Task {
                let words = reply.split(separator: " ", omittingEmptySubsequences: false)
                for (index, word) in words.enumerated() {
                    if index > 0 { try await Task.sleep(for: pace) }
                    continuation.yield(.delta(index == 0 ? String(word) : " " + word))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: - Composing the reply

    static let acknowledgements = [
        "Thank you for sharing that with me.",
        "I'm really glad you brought this up.",
        "That sounds like a lot to be holding right now.",
        "I appreciate you being so open about this.",
    ]

    static let questions = [
        "What feels most important to you about this right now?",
        "If things went the way you hope, what would be different?",
        "What is one small step that would feel doable this week?",
        "What have you already tried, and what did you notice?",
        "Who or what helps you feel more like yourself when this comes up?",
    ]

    static func reply(to request: CompletionRequest) -> String {
        let last = request.messages.last(where: { $0.role == .user })?.content ?? ""
        let seed = stableHash(last + "\u{1}" + String(request.messages.count))
        let acknowledgement = acknowledgements[Int(seed % UInt64(acknowledgements.count))]
        // Crisis support replaces coaching: stay, be honest about the limits, and name the people who can help.
        let crisis = section(PromptHeadings.crisis, in: request.system)
        if !crisis.isEmpty { return crisisReply(crisis) }
        // A pattern memory asks to raise replaces the reflection and the question: it ends with its own.
        if let pattern = section(PromptHeadings.pattern, in: request.system).first {
            return [acknowledgement, pattern.components(separatedBy: " Raise it gently").first ?? pattern].joined(separator: " ")
        }
        let callback = section(PromptHeadings.relevant, in: request.system).first.map(recall) ?? ""
        // A question asked back is the reply's question; otherwise it ends with one of its own.
        let question = questions[Int((seed / 7) % UInt64(questions.count))]
        let close: [String] = switch Reflection.of(last) {
        case .question(let asked): [asked]
        case .statement(let reflected): [reflected, question]
        case nil: ["I'd love to hear a little more about what's on your mind.", question]
        }
        return ([acknowledgement, callback] + close).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// What the offline coach says in crisis support (Journey 4): warm, honest that a coaching tool is not
    /// enough, the resources by name, and a question that keeps the conversation open.
    static func crisisReply(_ items: [String]) -> String {
        let resources = items.filter { $0.hasPrefix(PromptHeadings.resourceItem) }.prefix(2)
            .map { $0.dropFirst(PromptHeadings.resourceItem.count).replacingOccurrences(of: " — ", with: " (") + ")" }
        let reach = resources.isEmpty ? "" : "You can reach " + resources.joined(separator: " or ") + " right now."
        if items.first?.hasPrefix("Someone they know") == true {
            return ["Thank you for telling me — that sounds frightening, and it matters that you reached out.",
                    "If they are in immediate danger, please call your local emergency number now.", reach,
                    "I'm here with you too. How are you holding up?"].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return ["I hear you, and what you're feeling sounds really heavy.",
                "I want to be honest — this is beyond what I can help with as a coaching tool, and you deserve to talk to someone trained for exactly this.",
                reach, "I'm still here with you. Are you safe right now?"].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The items of a `## heading` section of the system prompt.
    static func section(_ heading: String, in system: String) -> [String] {
        guard let start = system.range(of: "## \(heading)\n") else { return [] }
        return system[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("- ") }
            .map { String($0.dropFirst(2)) }
    }

    /// A remembered item, said back to the person: "I remember …".
    static func recall(_ item: String) -> String {
        if item.hasPrefix(PromptHeadings.sessionItem), let colon = item.firstIndex(of: ":") {
            let day = item.dropFirst(PromptHeadings.sessionItem.count)[..<colon]
            let topics = item.range(of: "Topics: ").map { item[$0.upperBound...].prefix { $0 != "." } } ?? ""
            return topics.isEmpty ? "I remember our conversation on \(day)." : "I remember what you shared on \(day) about \(topics)."
        }
        var words = item.split(separator: " ").map { word in secondPerson[word.lowercased()] ?? String(word) }
        // Facts are third person and often subjectless ("Works as a designer"): "you work as a designer".
        if let first = words.first, !secondPerson.values.contains(first) {
            let verb = first.lowercased()
            words[0] = "you " + (verb == "is" ? "are" : verb == "has" ? "have" : verb.hasSuffix("s") && !verb.hasSuffix("ss") ? String(verb.dropLast()) : verb)
        }
        return "I remember that \(words.joined(separator: " "))."
    }

    static let secondPerson: [String: String] = [
        "they": "you", "them": "you", "their": "your", "theirs": "yours", "themselves": "yourself", "they're": "you're",
        "they've": "you've",
    ]

    /// FNV-1a: stable across processes (Swift's `hashValue` is seeded per process).
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
