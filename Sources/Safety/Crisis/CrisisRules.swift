/// The first signal of the crisis check (``CrisisDetector``): phrase cues you can read (``CrisisCues``) score
/// each kind, then what surrounds a cue weakens it —
///
/// - **negation** before it in the same clause ("I'd never hurt myself") or closing it ("…thoughts of harming
///   myself, and I'm not"), unless the phrase is itself negative ("I don't want to be here anymore");
/// - **distant past** in the same clause ("when I was 16", "years ago", "used to") with nothing recent
///   ("again", "last night", "still") beside it;
/// - **framing**: fiction, study, media or games anywhere in the message ("my novel's villain", "for my psych
///   class"), or quotation marks around the cue — unless a friend or relative is the one quoted;
/// - **figurative speech**: everyday hyperbole ("this deadline is killing me", "I could kill for a coffee",
///   "dying to see it") vetoes the cue in its clause, and laughter weakens the cues that jokes use;
/// - **topic**: a bare name for the risk used as a field of work or study ("suicide prevention training", "a
///   domestic violence shelter");
/// - **whose risk**: "she wants to die" moves a personal cue to a third party, and what is done to the writer
///   ("checks my phone") is not abuse when the writer is the one doing it ("how do I stop checking my phone").
///
/// Cues of one kind combine like independent evidence (1 − Π(1 − score)); the result per kind, the cues and what
/// weakened them are features of ``CrisisModel``, which makes the decision. Pure: microseconds per message.
struct CrisisRules: Sendable {
    let cues: [CrisisCue]
    private let index: PatternIndex

    init() {
        self.init(cues: CrisisCues.all)
    }

    init(cues: [CrisisCue]) {
        self.cues = cues
        index = PatternIndex(cues.map(\.pattern))
    }

    /// What the cues find in a message, each signal with its context applied.
    func read(_ tokens: Tokens) -> [CrisisAssessment.Signal] {
        let keyed = tokens.keyed
        let words = keyed.words
        guard !words.isEmpty else { return [] }
        let clauses = Self.clauseRanges(tokens.tokens)
        // Context is read only for clauses where a cue or role was found: most messages have none.
        lazy var framed = Framing.isFramed(words)
        lazy var messageTense = MessageTense(words)
        var signals: [CrisisAssessment.Signal] = []
        var seen = Set<String>()
        for (position, clause) in clauses.enumerated() {
            var matches: [Match] = []
            for start in clause {
                for index in index.candidates(at: keyed.keys[start]) {
                    let cue = cues[index]
                    guard let end = cue.pattern.match(keyed, at: start, limit: clause.upperBound) else { continue }
                    matches.append(Match(name: cue.name, kind: cue.kind, weight: cue.weight, span: start..<end, traits: cue.traits))
                }
            }
            for finding in Roles.find(words, clause: clause) {
                matches.append(Match(name: "role-" + finding.kind.rawValue, kind: finding.kind, weight: finding.weight,
                                     span: finding.span, traits: finding.kind == .selfHarm ? [] : [.figurative]))
            }
            guard !matches.isEmpty else { continue }
            let vetoed = Figurative.vetoedKinds(keyed, clause: clause)
            let tense = Tense(keyed, clause: clause, next: clauses.dropFirst(position + 1).first, message: messageTense)
            for match in matches where !seen.contains(match.name) {
                let start = match.span.lowerBound
                var kind = match.kind
                if match.traits.contains(.personal), Subject.isSomeoneElse(tokens.tokens, before: start, clauseStart: clause.lowerBound) {
                    kind = .thirdParty
                }
                // "she'd die of embarrassment" is as figurative as "I'd die of embarrassment".
                if vetoed.contains(kind) || vetoed.contains(match.kind) { continue }
                if match.traits.contains(.doneToWriter),
                   Subject.nearest(tokens.tokens, before: start, clauseStart: clause.lowerBound, writer: ["i"]) == .writer { continue }
                var modifiers: [String] = []
                var score = match.weight
                if !match.traits.contains(.negationInside), Negation.denies(keyed, span: match.span, clause: clause) {
                    modifiers.append("negated"); score *= 0.1
                }
                if match.traits.contains(.topic), Topic.isTopic(words, span: match.span, clause: clause) {
                    modifiers.append("topic"); score *= 0.15
                }
                if tense.isDistantPast {
                    modifiers.append("past"); score *= 0.15
                }
                if tokens.tokens[start].quoted {
                    if Subject.quotesSomeoneClose(tokens.tokens, quoteAt: start) {
                        kind = .thirdParty
                    } else {
                        modifiers.append("quoted"); score *= 0.3
                    }
                }
                if framed, !Subject.isWriter(tokens.tokens, span: match.span, clauseStart: clause.lowerBound) {
                    modifiers.append("fiction"); score *= 0.15
                }
                if tokens.laughs, match.traits.contains(.figurative) || kind == .harmToOthers {
                    modifiers.append("laughing"); score *= 0.5
                }
                seen.insert(match.name)
                signals.append(.init(cue: match.name, kind: kind, modifiers: modifiers, score: score, span: match.span))
            }
        }
        return signals
    }

    /// Evidence per kind combined as independent signals.
    static func combine(_ signals: [CrisisAssessment.Signal]) -> [CrisisKind: Double] {
        var remaining: [CrisisKind: Double] = [:]
        for signal in signals { remaining[signal.kind, default: 1] *= 1 - signal.score }
        return remaining.mapValues { 1 - $0 }
    }

    /// A cue or a role found in a clause, before its context is weighed.
    struct Match {
        let name: String
        let kind: CrisisKind
        let weight: Double
        let span: Range<Int>
        let traits: CrisisCue.Traits
    }

    static func clauseRanges(_ tokens: [Tokens.Token]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for index in tokens.indices.dropFirst() where tokens[index].clause != tokens[index - 1].clause {
            ranges.append(start..<index)
            start = index
        }
        if start < tokens.count { ranges.append(start..<tokens.count) }
        return ranges
    }
}
