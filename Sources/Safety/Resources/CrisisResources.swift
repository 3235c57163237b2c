import Foundation

/// A place a person in crisis can reach a human now.
public struct CrisisResource: Sendable, Codable, Equatable {
    public var name: String
    /// What it offers, in a sentence the app can show as is.
    public var description: String
    public var phone: String?
    /// How to reach it by text message ("Text HOME to 741741").
    public var text: String?
    public var url: String?

    public init(name: String, description: String, phone: String? = nil, text: String? = nil, url: String? = nil) {
        self.name = name
        self.description = description
        self.phone = phone
        self.text = text
        self.url = url
    }
}

/// What apps show about safety: the crisis resources for a locale and the coaching disclaimer (FR17, FR19).
/// A tenant may store its own per locale; these are the defaults.
public enum CrisisResources {
    /// Lists are keyed by locale ("en-GB"), by language ("en"), and "default" for everyone else.
    public typealias Table = [String: [CrisisResource]]

    public static let defaultLocale = "default"

    static let lifeline988 = CrisisResource(
        name: "988 Suicide & Crisis Lifeline", description: "Free, confidential support 24/7. Call or text 988.",
        phone: "988", text: "988", url: "https://988lifeline.org"
    )
    static let crisisTextLine = CrisisResource(
        name: "Crisis Text Line", description: "Text with a trained crisis counselor, any time.",
        text: "Text HOME to 741741", url: "https://www.crisistextline.org"
    )
    static let iasp = CrisisResource(
        name: "International Association for Suicide Prevention",
        description: "Crisis centres around the world, if you are outside these countries.",
        url: "https://www.iasp.info/resources/Crisis_Centres/"
    )

    public static let builtIn: Table = [
        "default": [lifeline988, crisisTextLine, iasp],
        "en-US": [
            lifeline988, crisisTextLine,
            CrisisResource(name: "Emergency services", description: "If you or someone else is in immediate danger, call 911.", phone: "911"),
        ],
        "en-GB": [
            CrisisResource(name: "Samaritans", description: "Free, any time, from any phone. Call 116 123.", phone: "116 123",
                           url: "https://www.samaritans.org"),
            CrisisResource(name: "Shout", description: "Free, confidential text support, any time.", text: "Text SHOUT to 85258",
                           url: "https://giveusashout.org"),
            CrisisResource(name: "Emergency services", description: "If you or someone else is in immediate danger, call 999.", phone: "999"),
        ],
        "en-CA": [
            CrisisResource(name: "9-8-8 Suicide Crisis Helpline", description: "Call or text 988, any time.", phone: "988", text: "988",
                           url: "https://988.ca"),
            CrisisResource(name: "Emergency services", description: "If you or someone else is in immediate danger, call 911.", phone: "911"),
        ],
        "en-AU": [
            CrisisResource(name: "Lifeline", description: "Crisis support, any time. Call 13 11 14 or text 0477 13 11 14.",
                           phone: "13 11 14", text: "0477 13 11 14", url: "https://www.lifeline.org.au"),
            CrisisResource(name: "Emergency services", description: "If you or someone else is in immediate danger, call 000.", phone: "000"),
        ],
    ]

    /// The best list for `locale` in `table`: the exact locale, then its language, then the default; `nil` when
    /// the table has none of them.
    public static func select(_ locale: String?, from table: Table) -> (locale: String, resources: [CrisisResource])? {
        for candidate in candidates(for: locale) {
            if let resources = table[candidate] { return (candidate, resources) }
        }
        return nil
    }

    /// The keys to try for `locale`, most specific first: "en-gb" → ["en-GB", "en", "default"].
    public static func candidates(for locale: String?) -> [String] {
        guard let locale, let normalised = normalise(locale) else { return [defaultLocale] }
        let language = String(normalised.prefix { $0 != "-" })
        return (normalised == language ? [language] : [normalised, language]) + [defaultLocale]
    }

    /// A BCP 47 tag as the tables key it ("EN_gb" → "en-GB"), or `nil` when it is not one. Only ASCII letters and
    /// digits count: a tag in another script ("еn", with a Cyrillic е) is no tag.
    public static func normalise(_ tag: String) -> String? {
        guard tag.utf8.count <= 35 else { return nil }
        let parts = tag.replacingOccurrences(of: "_", with: "-").split(separator: "-", omittingEmptySubsequences: false)
        func ascii(_ character: Character, digits: Bool) -> Bool {
            guard let value = character.asciiValue else { return false }
            return (65...90).contains(value) || (97...122).contains(value) || (digits && (48...57).contains(value))
        }
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ ascii($0, digits: false) }), parts.count <= 3,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 8 && $0.allSatisfy { ascii($0, digits: true) } }) else { return nil }
        let rest = parts.dropFirst().map { $0.count == 2 ? $0.uppercased() : $0.lowercased() }
        return ([language.lowercased()] + rest).joined(separator: "-")
    }

    /// The first well-formed language of an `Accept-Language` header ("en-GB,en;q=0.8" → "en-GB"): apps send the
    /// person's preferred language first. Any bytes are safe: `;`, `,;` or a huge header give `nil`, the default
    /// resources. Only the first few entries are read, so a header of thousands of commas costs nothing.
    public static func preferredLocale(acceptLanguage: String?) -> String? {
        guard let acceptLanguage else { return nil }
        for entry in acceptLanguage.utf8.split(separator: UInt8(ascii: ","), maxSplits: 8, omittingEmptySubsequences: true).prefix(8) {
            let range = entry.prefix { $0 != UInt8(ascii: ";") }
            guard let tag = String(range), case let trimmed = tag.trimmingCharacters(in: .whitespaces), trimmed != "*" else { continue }
            if let locale = normalise(trimmed) { return locale }
        }
        return nil
    }

    /// Shown by apps at onboarding and beside the chat (FR19).
    public static let disclaimer = Disclaimer(
        short: "AI coaching, not therapy.",
        full: "Hearth's coach is an AI coaching tool, not a therapist, doctor or crisis service. It cannot diagnose " +
            "conditions or advise on medication or treatment. If you are thinking about harming yourself or someone " +
            "else, or you are in danger, contact one of the crisis resources shown or your local emergency number now."
    )
}

public struct Disclaimer: Sendable, Codable, Equatable {
    public var short: String
    public var full: String

    public init(short: String, full: String) {
        self.short = short
        self.full = full
    }
}
