import Foundation

/// The automatic screening of a creator's persona on submit (issue 6): pass, or flag with the reasons a
/// moderator sees. Reads each field with its disguises taken off (``RevealedText``), then looks for the seven
/// ``ModerationConcern``s: cue phrases (``ModerationCues``) with denial and referral read around them, role
/// markers, a professional title in the name, suspicious links and wallet addresses, and hiding itself (markup
/// comments, base64, letters split or swapped for look-alikes around a watched word).
///
/// What the rules find is not the verdict: ``ModerationModel`` weighs it with the words of the persona and
/// decides, as the crisis check's model does. Hidden text and chat-template markers flag whatever it says: a
/// persona has no use for either. Deterministic and explainable: every flag names the concern, the cue and the
/// field (or, when only the words decided, the concern the model saw). `hearth eval moderation` measures it
/// (docs/safety.md).
public struct PersonaScreening: Sendable {
    public enum Verdict: String, Sendable, Codable {
        case pass
        case flag
    }

    public struct Reason: Sendable, Codable, Equatable, Hashable, CustomStringConvertible {
        public let concern: ModerationConcern
        /// The cue or check that found it ("ignore-instructions", "suspicious-link", "base64").
        public let cue: String
        /// The persona field it was found in.
        public let field: String

        public var description: String { "\(concern.rawValue):\(cue) (\(field))" }
    }

    public struct Result: Sendable, Codable, Equatable {
        public let verdict: Verdict
        /// Why it was flagged; empty when it passes.
        public let reasons: [Reason]
        /// How likely the model finds that it should not pass (0…1).
        public let score: Double
    }

    let model: ModerationModel

    public init(model: ModerationModel = .shipped) {
        self.model = model
    }

    /// Screens named fields (`("name", "Coach Aisha")`, `("methodology", …)`).
    public func screen(_ fields: [(name: String, text: String)]) -> Result {
        let reading = Self.read(fields)
        let (score, concern) = model.assess(reading.features)
        let hidden = reading.reasons.contains { Self.alwaysFlagged.contains($0.cue) }
        guard score >= model.threshold || hidden else { return Result(verdict: .pass, reasons: [], score: score) }
        let reasons = reading.reasons.isEmpty ? [Reason(concern: concern, cue: "model", field: "persona")] : reading.reasons
        return Result(verdict: .flag, reasons: reasons, score: score)
    }

    /// Hidden text and chat-template markers: no ordinary persona has them, whatever the words say.
    static let alwaysFlagged: Set<String> = ["markup-comment", "base64", "role-marker", "zero-width"]

    /// What the rules find in each field, the cues a denial or referral cleared, and the model's features: the
    /// one reading the screening and the trainer share.
    static func read(_ fields: [(name: String, text: String)]) -> (reasons: [Reason], features: [String: Double]) {
        var reasons: [Reason] = []
        var cleared: Set<String> = []
        var texts: [String] = []
        for (field, text) in fields {
            var found: [(ModerationConcern, String)] = []
            let revealed = RevealedText(text, watched: watched)
            for disguise in revealed.disguises.sorted() { found.append((.injection, disguise)) }
            if hasRoleMarkers(text) { found.append((.injection, "role-marker")) }
            if field == "name", hasProfessionalTitle(revealed.text) { found.append((.impersonation, "professional-title")) }
            found += links(in: revealed.text)
            for body in [revealed.text] + revealed.hidden.map({ RevealedText($0, watched: watched).text }) {
                let reading = cues(in: Tokens(body))
                found += reading.found
                cleared.formUnion(reading.cleared)
                texts.append(body)
            }
            for (concern, cue) in found {
                let reason = Reason(concern: concern, cue: cue, field: field)
                if !reasons.contains(reason) { reasons.append(reason) }
            }
        }
        return (reasons, ModerationFeatures.extract(reasons: reasons, cleared: cleared, texts: texts))
    }

    // MARK: Cue phrases

    static func cues(in tokens: Tokens) -> (found: [(ModerationConcern, String)], cleared: Set<String>) {
        let keyed = tokens.keyed
        let words = keyed.words
        guard !words.isEmpty else { return ([], []) }
        var found: [(ModerationConcern, String)] = []
        var cleared: Set<String> = []
        if speaksAsSomeoneFamous(tokens) { found.append((.impersonation, "famous-person")) }
        for clause in CrisisRules.clauseRanges(tokens.tokens) {
            let referral = referralPattern.firstMatch(in: keyed, range: clause) != nil
            for cue in ModerationCues.all {
                guard let span = cue.pattern.firstMatch(in: keyed, range: clause) else { continue }
                // A denial before the cue or inside it: "I never ask for…", "I am not a therapist".
                let denied = cue.deniable
                    && (Negation.denies(keyed, span: span, clause: clause) || span.contains { Negation.words.contains(words[$0]) })
                if denied || cue.clearedByReferral && referral {
                    cleared.insert(cue.name)
                    continue
                }
                found.append((cue.concern, cue.name))
            }
        }
        let suggestive = Set(words.filter(ModerationCues.suggestive.contains))
        if suggestive.count >= ModerationCues.suggestiveNeeded { found.append((.sexual, "suggestive")) }
        // "porn" is sexual unless it is the figure of speech ("inspiration porn", "food porn").
        for index in words.indices where pornWords.contains(words[index]) && (index == 0 || !figurativePorn.contains(words[index - 1])) {
            found.append((.sexual, "porn"))
            break
        }
        return (found, cleared)
    }

    /// A real, well-known person named as who is speaking ("It's Oprah!", "Taylor Swift here") rather than as a
    /// source ("inspired by Brené Brown's research", "the James Clear habit loop"): the name with no attribution
    /// word just before it and not possessive.
    static func speaksAsSomeoneFamous(_ tokens: Tokens) -> Bool {
        let keyed = tokens.keyed, words = keyed.words
        var start = 0
        while start < words.count, let span = famousPattern.firstMatch(in: keyed, range: start..<words.count) {
            let before = words[max(0, span.lowerBound - 3)..<span.lowerBound]
            let possessive = tokens.tokens[span.upperBound - 1].possessive
            if !possessive, !before.contains(where: attribution.contains) { return true }
            start = span.upperBound
        }
        return false
    }

    static let famousPattern = TokenPattern("@famous", classes: ModerationCues.classes)
    static let attribution: Set<String> = [
        "inspired", "based", "style", "like", "from", "by", "of", "read", "reading", "fan", "book", "books", "framework",
        "research", "method", "approach", "teachings", "quotes", "quote", "podcast", "according", "using", "uses", "borrowing",
        "popularised", "popularized", "and", "with", "about", "than", "beyond", "per", "via", "as", "ala", "la", "after", "sorry",
    ]

    static let pornWords: Set<String> = ["porn", "porno", "pornography", "pornographic"]
    static let figurativePorn: Set<String> = [
        "inspiration", "food", "productivity", "design", "travel", "trauma", "poverty", "misery", "ruin", "cabin", "plant",
        "book", "gear", "earth", "disaster", "grief", "hustle", "property", "data",
    ]

    /// "Talk to your doctor before changing any medication": sending the person to a professional.
    static let referralPattern = TokenPattern(
        "talk|speak|consult|ask|check|see|refer|refers|referred|referring|work|contact|visit|call|discuss|book|pass|passed|hand|handed|send|sends|sent|direct|directs|point|points|suggest|suggests|recommend|recommends ~4 @profession|professional|professionals|specialist|specialists|medical_team|care_team|citizens_advice",
        classes: ModerationCues.classes
    )

    /// Words a creator might split, pad with marks or spell in look-alikes to slip past a filter.
    static let watched: Set<String> = [
        "ignore", "instructions", "instruction", "system", "prompt", "previous", "override", "jailbreak", "disregard",
        "developer", "bypass", "restrictions", "guidelines", "reveal", "password", "unrestricted", "uncensored", "forget",
        "nsfw", "erotic", "telegram", "whatsapp", "bitcoin", "crypto", "diagnose", "therapist", "psychiatrist", "prescribe",
        "medication", "sexual", "nudes",
    ]

    // MARK: Role markers and titles

    /// Labels that open a line as a turn of the model's conversation ("System:", "### Instruction:"). "User:" and
    /// "Coach:" are left alone: creators write sample dialogues with them.
    static let roleLabels: Set<String> = ["system", "developer", "instruction", "instructions", "system prompt", "prompt", "assistant"]

    static func hasRoleMarkers(_ text: String) -> Bool {
        if text.contains(where: { $0 == "<" || $0 == "[" }) {
            if PromptHardening.templateTokens.contains(where: { text.range(of: $0, options: .caseInsensitive) != nil }) { return true }
            if PromptHardening.blockTag.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { return true }
        }
        return text.split(separator: "\n").contains { line in
            let body = line.drop { $0 == " " || $0 == "#" || $0 == "*" || $0 == "[" }
            guard let colon = body.firstIndex(of: ":") else { return false }
            return roleLabels.contains(body[..<colon].lowercased().trimmingCharacters(in: CharacterSet(charactersIn: " *_]")))
        }
    }

    /// "Dr. Calm", "Sarah Lee, LCSW": a persona named as a professional.
    static func hasProfessionalTitle(_ name: String) -> Bool {
        let words = Tokens(name).words
        guard let first = words.first else { return false }
        return ["dr", "doctor", "prof", "professor"].contains(first) || words.contains { credentials.contains($0) }
    }

    static let credentials: Set<String> = ["md", "phd", "psyd", "lcsw", "lpc", "lmft", "lmhc", "rn", "np", "dds", "do", "mbbs", "frcpsych"]

    // MARK: Links

    static let urlPattern = try! NSRegularExpression(
        pattern: #"(?i)\b(?:https?://|www\.)[^\s<>"]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,12}/[^\s<>"]*|\b[a-z0-9-]+\.(?:ly|gl|gd|me|xyz|top|click|tk|ml|ga|cf|gq|icu|cam|zip|mov)\b|\b(?:t\.co|tinyurl\.com|rb\.gy|is\.gd|wa\.me)\b"#
    )
    /// An international phone number ("+44 7700 900123"): a persona that routes people to a number is taking
    /// them off the platform.
    static let phonePattern = try! NSRegularExpression(pattern: #"\+\d{1,3}[\s-]?\d{2,5}([\s-]?\d{2,}){2,}"#)
    static let walletPattern = try! NSRegularExpression(pattern: #"\b(0x[a-fA-F0-9]{40}|bc1[a-z0-9]{25,59}|[13][a-km-zA-HJ-NP-Z1-9]{25,34})\b"#)
    static let shorteners: Set<String> = [
        "bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "cutt.ly", "rb.gy", "shorturl.at", "tiny.cc", "buff.ly",
        "rebrand.ly", "t.ly", "s.id", "v.gd", "bl.ink", "lnkd.in",
    ]
    static let messengerHosts: Set<String> = ["t.me", "wa.me", "telegram.me", "chat.whatsapp.com", "telegram.org", "signal.me"]
    static let riskyTLDs: Set<String> = ["xyz", "top", "click", "tk", "ml", "ga", "cf", "gq", "icu", "cam", "zip", "mov", "loan", "win", "bid", "rest"]
    static let riskyPathWords = ["login", "verify", "wallet", "claim", "airdrop", "giveaway", "free-gift", "bonus", "signin", "account-update"]

    /// A creator's own website passes; shorteners, messenger invites, raw addresses, throwaway domains and
    /// credential-shaped paths do not, nor do crypto wallet addresses.
    static func links(in text: String) -> [(ModerationConcern, String)] {
        let range = NSRange(text.startIndex..., in: text)
        var found: [(ModerationConcern, String)] = []
        if walletPattern.firstMatch(in: text, range: range) != nil { found.append((.scam, "wallet-address")) }
        if phonePattern.firstMatch(in: text, range: range) != nil { found.append((.scam, "phone-number")) }
        for match in urlPattern.matches(in: text, range: range) {
            guard let swiftRange = Range(match.range, in: text) else { continue }
            let link = text[swiftRange].lowercased()
            let withoutScheme = link.replacingOccurrences(of: #"^https?://"#, with: "", options: .regularExpression)
            let authority = withoutScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let host = String(authority.split(separator: "@").last ?? "").split(separator: ":").first.map(String.init) ?? ""
            let bareHost = host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
            let tld = bareHost.split(separator: ".").last.map(String.init) ?? ""
            let suspicious = shorteners.contains(bareHost) || messengerHosts.contains(bareHost) || riskyTLDs.contains(tld)
                || authority.contains("@") || bareHost.hasPrefix("xn--") || bareHost.contains(".xn--")
                || bareHost.allSatisfy({ $0.isNumber || $0 == "." })
                || riskyPathWords.contains(where: { withoutScheme.dropFirst(authority.count).contains($0) })
            if suspicious { found.append((.scam, "suspicious-link")) }
        }
        return found
    }
}
