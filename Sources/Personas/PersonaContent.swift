import Foundation
import HearthPlatform

/// What a creator writes (FR23): the persona's name, domain and voice. Stored twice on a persona, as the working
/// copy and as the published copy (migration 0015), and screened (``PersonaScreening``) before it can be shared.
/// Creator text is data: it reaches a prompt only neutralised, below rules it cannot change (docs/personas.md).
public struct PersonaContent: Codable, Sendable, Equatable {
    public var name: String
    /// A coaching domain key of the tenant's (`career`, …).
    public var domain: String
    /// One or two sentences for the landing page and the app's persona card.
    public var description: String
    public var tone: String
    public var methodology: String
    public var personality: String
    /// The coach's first message in a new thread.
    public var greeting: String?
    /// Prompts a user can tap to start ("Help me prepare for a salary talk").
    public var examples: [String]
    /// How the creator is named on the landing page ("Aisha K."): chosen by them, never their account's email.
    public var creatorName: String

    public init(name: String, domain: String, description: String, tone: String, methodology: String, personality: String,
                greeting: String? = nil, examples: [String] = [], creatorName: String) {
        self.name = name
        self.domain = domain
        self.description = description
        self.tone = tone
        self.methodology = methodology
        self.personality = personality
        self.greeting = greeting
        self.examples = examples
        self.creatorName = creatorName
    }

    enum CodingKeys: String, CodingKey {
        case name, domain, description, tone, methodology, personality, greeting, examples, creatorName
    }

    /// `greeting` and `examples` may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name), domain: try container.decode(String.self, forKey: .domain),
            description: try container.decode(String.self, forKey: .description), tone: try container.decode(String.self, forKey: .tone),
            methodology: try container.decode(String.self, forKey: .methodology),
            personality: try container.decode(String.self, forKey: .personality),
            greeting: try container.decodeIfPresent(String.self, forKey: .greeting),
            examples: try container.decodeIfPresent([String].self, forKey: .examples) ?? [],
            creatorName: try container.decode(String.self, forKey: .creatorName)
        )
    }

    /// Each required field with its limits, in characters.
    var requiredFields: [(name: String, value: String, range: ClosedRange<Int>)] {
        [("name", name, 2...60), ("description", description, 10...300), ("tone", tone, 2...500),
         ("methodology", methodology, 2...2000), ("personality", personality, 2...1000), ("creatorName", creatorName, 1...60)]
    }
    static let greetingLimit = 1...500
    static let exampleLimit = 2...200
    static let maximumExamples = 3

    /// Trimmed, with every limit checked: a clear 422 naming the field otherwise.
    func validated(domains: Set<String>) throws -> PersonaContent {
        var content = self
        for key: WritableKeyPath<PersonaContent, String> in [\.name, \.domain, \.description, \.tone, \.methodology, \.personality, \.creatorName] {
            content[keyPath: key] = content[keyPath: key].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        content.greeting = content.greeting?.trimmingCharacters(in: .whitespacesAndNewlines)
        if content.greeting?.isEmpty == true { content.greeting = nil }
        content.examples = content.examples.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }

        for field in content.requiredFields where !field.range.contains(field.value.count) {
            throw APIError.validation("\(field.name) must be \(field.range.lowerBound) to \(field.range.upperBound) characters.")
        }
        guard domains.contains(content.domain) else {
            throw APIError.validation("domain must be one of: \(domains.sorted().joined(separator: ", ")).")
        }
        if let greeting = content.greeting, !Self.greetingLimit.contains(greeting.count) {
            throw APIError.validation("greeting must be at most \(Self.greetingLimit.upperBound) characters.")
        }
        guard content.examples.count <= Self.maximumExamples, content.examples.allSatisfy({ Self.exampleLimit.contains($0.count) }) else {
            throw APIError.validation("examples: at most \(Self.maximumExamples), each \(Self.exampleLimit.lowerBound) to \(Self.exampleLimit.upperBound) characters.")
        }
        return content
    }

    /// Every field a creator wrote, named: what the screening reads.
    public var fields: [(name: String, text: String)] {
        requiredFields.map { ($0.name, $0.value) }
            + (greeting.map { [("greeting", $0)] } ?? [])
            + examples.map { ("examples", $0) }
    }
}
