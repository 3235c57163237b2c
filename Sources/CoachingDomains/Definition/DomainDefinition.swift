import Foundation

/// One coaching domain as operators write it (docs/domains.md): how the coach sounds and works in it, and what
/// the router learns it from. Stored per tenant as JSON, one version per change.
public struct DomainDefinition: Sendable, Codable, Equatable {
    public struct Example: Sendable, Codable, Equatable {
        public var user: String
        public var coach: String

        public init(user: String, coach: String) {
            self.user = user
            self.coach = coach
        }
    }

    public struct Router: Sendable, Codable, Equatable {
        /// Words and short phrases by weight: 3 almost always means this domain, 2 is a strong hint, 1 a weak one.
        public var keywords: [Int: [String]]
        /// Messages people write in this domain.
        public var samples: [String]

        public init(keywords: [Int: [String]] = [:], samples: [String] = []) {
            self.keywords = keywords
            self.samples = samples
        }
    }

    public var key: String
    public var name: String
    public var description: String
    public var tone: String
    public var methodology: String
    public var personality: String
    public var openingStyle: String
    public var examples: [Example]
    public var router: Router
    /// A disabled domain keeps its history but is neither routed to nor offered.
    public var enabled: Bool

    public init(key: String, name: String, description: String, tone: String, methodology: String, personality: String,
                openingStyle: String, examples: [Example] = [], router: Router = .init(), enabled: Bool = true) {
        self.key = key
        self.name = name
        self.description = description
        self.tone = tone
        self.methodology = methodology
        self.personality = personality
        self.openingStyle = openingStyle
        self.examples = examples
        self.router = router
        self.enabled = enabled
    }

    enum CodingKeys: String, CodingKey {
        case key, name, description, tone, methodology, personality, openingStyle = "opening_style", examples, router, enabled
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decode(String.self, forKey: .description)
        tone = try container.decode(String.self, forKey: .tone)
        methodology = try container.decode(String.self, forKey: .methodology)
        personality = try container.decode(String.self, forKey: .personality)
        openingStyle = try container.decode(String.self, forKey: .openingStyle)
        examples = try container.decodeIfPresent([Example].self, forKey: .examples) ?? []
        router = try container.decodeIfPresent(Router.self, forKey: .router) ?? .init()
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
    }

    public static let keyPattern = "^[a-z][a-z0-9_-]{1,31}$"
    /// Names the console's own pages use where a key would go (`domains/new`).
    public static let reservedKeys: Set = ["new"]

    /// What is wrong with it, in words an operator can act on; empty when it is fine.
    public func problems() -> [String] {
        var problems: [String] = []
        if key.range(of: Self.keyPattern, options: .regularExpression) == nil {
            problems.append("key must be 2–32 lowercase letters, digits, '-' or '_', starting with a letter")
        }
        if Self.reservedKeys.contains(key) { problems.append("key '\(key)' is reserved (the console's page for adding a domain)") }
        let fields = [("name", name, 60), ("description", description, 600), ("tone", tone, 600), ("methodology", methodology, 2000),
                      ("personality", personality, 600), ("opening_style", openingStyle, 600)]
        for (field, value, limit) in fields {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { problems.append("\(field) is empty") }
            if value.count > limit { problems.append("\(field) is longer than \(limit) characters") }
        }
        if examples.count > 10 { problems.append("at most 10 examples") }
        for (index, example) in examples.enumerated()
        where example.user.trimmingCharacters(in: .whitespaces).isEmpty || example.coach.trimmingCharacters(in: .whitespaces).isEmpty
            || example.user.count > 600 || example.coach.count > 600 {
            problems.append("example \(index + 1) needs a user and a coach line of at most 600 characters")
        }
        if let weight = router.keywords.keys.first(where: { !(1...3).contains($0) }) {
            problems.append("router keyword weight \(weight) is not 1, 2 or 3")
        }
        let keywords = router.keywords.values.joined()
        if keywords.count > 2000 { problems.append("at most 2000 router keywords") }
        if keywords.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty || $0.count > 60 }) {
            problems.append("router keywords must be 1–60 characters")
        }
        if router.samples.count > 2000 { problems.append("at most 2000 router samples") }
        if router.samples.contains(where: { $0.count > 1000 }) { problems.append("router samples must be at most 1000 characters") }
        if keywords.isEmpty && router.samples.isEmpty {
            problems.append("router needs keywords or samples, or no message can be routed here")
        }
        return problems
    }
}
