/// What around a cue changes its meaning: the four readers ``CrisisDetector`` applies.

/// A denial just before the cue, in the same clause: "I would never hurt myself", "no, I'm not going to end it".
enum Negation {
    static let words: Set<String> = [
        "not", "no", "never", "dont", "doesnt", "didnt", "wont", "wouldnt", "isnt", "arent", "wasnt", "werent",
        "aint", "havent", "hasnt", "hadnt", "cant", "couldnt", "shouldnt", "nor",
    ]
    /// "can't stop cutting", "don't know why I want to die": the negation is about the next word, not the cue.
    static let releasedBy: Set<String> = [
        "stop", "help", "wait", "resist", "shake", "handle", "take", "bear", "sleep", "know", "care", "sure",
        "understand", "lie", "get", "see", "think", "remember", "explain", "tell", "trust", "fight", "control",
    ]
    /// "why not just end it", "if not for my kids": questions and conditions, not denials.
    static let questionedBy: Set<String> = ["why", "if", "or", "whether", "even"]

    static func denies(_ words: [String], before start: Int, clauseStart: Int) -> Bool {
        let from = max(clauseStart, start - 4)
        for index in stride(from: start - 1, through: from, by: -1) where Self.words.contains(words[index]) {
            if index + 1 < start, releasedBy.contains(words[index + 1]) { return false }
            if index > clauseStart, questionedBy.contains(words[index - 1]) { return false }
            return true
        }
        return false
    }
}

/// Whether the clause is about a time long past ("when I was 16", "years ago", "I used to") and not also about
/// now ("again", "last night", "still"). A past-tense clause in a message that dates itself far back counts too:
/// "Back in 2019 I was in a dark place. I wanted to die every day. Now I run marathons."
struct Tense {
    let isDistantPast: Bool

    init(_ words: [String], clause: Range<Int>, message: MessageTense) {
        let here = Self.markers(words[clause])
        if here.recent {
            isDistantPast = false
        } else if here.distant {
            isDistantPast = true
        } else {
            isDistantPast = message.distant && !message.recent && words[clause].contains(where: Self.pastVerbs.contains)
        }
    }

    static func markers(_ words: ArraySlice<String>) -> (distant: Bool, recent: Bool) {
        var distant = false
        var recent = false
        var resolved = false
        var relapsed = false
        for index in words.indices {
            let word = words[index]
            let next = index + 1 < words.endIndex ? words[index + 1] : ""
            if resolvedPairs.contains(word + " " + next) { resolved = true }
            if word == "relapsed" || word == "again" { relapsed = true }
            if recentWords.contains(word) || recentPairs.contains(word + " " + next) { recent = true }
            if distantWords.contains(word) || distantPairs.contains(word + " " + next) { distant = true }
            if word == "when", next == "i", index + 2 < words.endIndex, words[index + 2] == "was" || words[index + 2] == "were" { distant = true }
            if let year = Int(word), (1950...2023).contains(year) { distant = true }
            if word == "at" || word == "age", let age = Int(next), (5...25).contains(age) { distant = true }
            if Int(word) != nil || numberWords.contains(word), ["years", "yrs", "decade", "decades"].contains(next) { distant = true }
        }
        if resolved, !relapsed { return (true, false) }
        return (distant, recent)
    }

    static let distantWords: Set<String> = [
        "childhood", "adolescence", "twenties", "decade", "decades", "recovered",
        "survived", "overcame", "formerly", "previously", "faded", "healed",
    ]
    static let distantPairs: Set<String> = [
        "used to", "years ago", "year ago", "long ago", "back in", "back then", "the past", "as a",
        "high school", "in college", "in uni", "at uni", "in university", "growing up", "been clean", "years clean",
        "ago now", "last year", "years back", "time ago", "ages ago", "for ages", "grew up",
        "are old", "old and", "growing up", "my teens", "a teenager", "a teen",
    ]
    /// Recovery: long past whatever else the clause says ("6 years clean as of today").
    static let resolvedPairs: Set<String> = [
        "years clean", "months clean", "clean for", "clean since", "been clean", "in recovery", "recovered from",
        "years free", "years sober",
    ]
    static let recentWords: Set<String> = [
        "again", "tonight", "today", "yesterday", "relapsed", "relapse", "still", "lately", "recently", "currently",
        "tomorrow", "constantly",
    ]
    static let recentPairs: Set<String> = [
        "last night", "last week", "this week", "this morning", "right now", "these days", "this month",
        "past few", "few days", "started again", "every day", "every night",
    ]
    static let pastVerbs: Set<String> = [
        "was", "were", "wanted", "tried", "attempted", "felt", "thought", "had", "did", "cut", "harmed", "struggled",
        "went", "used", "hit", "hurt", "took", "made", "got", "left", "grew", "said",
    ]
    static let numberWords: Set<String> = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "many", "several", "few"]
}

/// The distant/recent markers of a whole message, read once.
struct MessageTense {
    let distant: Bool
    let recent: Bool

    init(_ words: [String]) {
        (distant, recent) = Tense.markers(words[...])
    }
}

/// Fiction, study, media and games: the words are someone else's, or nobody's.
enum Framing {
    static let words: Set<String> = [
        "novel", "story", "stories", "book", "character", "characters", "protagonist", "villain", "antagonist",
        "plot", "chapter", "script", "screenplay", "scene", "film", "movie", "series", "episode", "documentary",
        "song", "lyrics", "lyric", "poem", "poetry", "podcast", "article", "essay", "thesis", "dissertation",
        "textbook", "statistics", "fiction", "fanfic", "roleplay", "dnd", "chatbot", "criminology", "policy",
        "fortnite", "valorant", "minecraft", "warzone", "overwatch", "gta", "videogame", "gaming", "playthrough",
        "hypothetically", "hypothetical", "psych", "psychology", "sociology", "curriculum", "syllabus",
        "netflix",
    ]

    /// "my novel's villain" reads `novels villain`: plurals and possessives count too.
    static func isFramed(_ words: [String]) -> Bool {
        words.contains { Self.words.contains($0) || ($0.hasSuffix("s") && Self.words.contains(String($0.dropLast()))) }
    }
}

/// Who a cue is about.
enum Subject {
    static let writer: Set<String> = ["i", "me", "my", "myself", "mine"]
    static let others: Set<String> = [
        "he", "she", "they", "hes", "shes", "theyre", "him", "her", "them", "someone", "somebody", "people",
        "person", "guy", "girl", "woman", "man", "boy", "kid", "kids", "friend", "friends", "sister", "brother",
        "son", "daughter", "child", "teen", "teenager", "mom", "dad", "roommate", "flatmate", "housemate",
        "colleague", "coworker", "cousin", "niece", "nephew", "partner", "husband", "wife", "boyfriend",
        "girlfriend", "student", "students", "classmate", "neighbor", "neighbour", "mate", "buddy", "client",
        "clients", "patient", "patients", "character", "everyone", "anyone", "fiance", "fiancee", "stepdad",
        "uncle", "aunt", "grandma", "grandpa", "baby", "toddler", "teammate", "employee", "report",
    ]

    /// The nearest subject before `start` in the clause is another person.
    static func isSomeoneElse(_ words: [String], before start: Int, clauseStart: Int) -> Bool {
        nearest(words, before: start, clauseStart: clauseStart, writer: writer) == .other
    }

    /// The cue names the writer ("myself", "hit me", "end my life") or the writer is its subject ("I", not the
    /// "my" of "my novel's villain").
    static func isWriter(_ words: [String], span: Range<Int>, clauseStart: Int) -> Bool {
        words[span].contains(where: writer.contains)
            || nearest(words, before: span.lowerBound, clauseStart: clauseStart, writer: ["i", "me"]) == .writer
    }

    /// Who the nearest person word in the six before `start` (within the clause) is, if any.
    static func nearest(_ words: [String], before start: Int, clauseStart: Int, writer: Set<String>) -> Roles.Party? {
        for index in stride(from: start - 1, through: max(clauseStart, start - 6), by: -1) {
            if writer.contains(words[index]) { return .writer }
            if others.contains(words[index]) { return .other }
        }
        return nil
    }

    /// The quotation the word at `start` sits in is introduced by someone close ("my sister texted 'I want to die'").
    static func quotesSomeoneClose(_ tokens: [Tokens.Token], quoteAt start: Int) -> Bool {
        var open = start
        while open > 0, tokens[open - 1].quoted { open -= 1 }
        let from = max(0, open - 6)
        return tokens[from..<open].contains { others.contains($0.word) && !["character", "people", "person", "someone", "somebody", "everyone", "anyone"].contains($0.word) }
    }
}

/// Everyday hyperbole that uses crisis words: each veto names the kinds it cancels in its clause.
enum Figurative {
    struct Veto {
        let pattern: TokenPattern
        let kinds: Set<CrisisKind>
        /// Words that, anywhere in the clause, keep the cue after all.
        var unless: Set<String> = []
    }

    static let vetoes: [Veto] = [
        Veto(pattern: TokenPattern("killing|killed|kill|kills|slay|slaying|slayed|murder|murdered|murdering|nailed|crushed|crushing|smashed|smashing it|this|that"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("kill|killing|die|dying|murder for|over a|an|some|one"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("to die for"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("dying|die|dead to|for see|try|know|get|go|meet|hear|read|watch|tell|start|eat|have|find|share|show|try"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("die|died|dying|dead of|from|with|laughing laughter|laughing|embarrassment|shame|boredom|cringe|cuteness|jealousy|envy|excitement|curiosity|heat|hunger|thirst|happiness|joy|anticipation|suspense|secondhand|second_hand|fomo|cold"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("kill|killing time|two_birds|the_lights|the_engine|the_music|the_mood|the_vibe|it|the_game|the_interview|the_presentation|the_exam|the_test|the_workout|my_workout|my_presentation|my_interview|the_bugs|the_process|the_app|my_cravings|the_cravings|the_noise|the_pain|weeds|the_weeds"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("beat|beating|smash|crush|destroy|destroying|crushing|kill|murder|hit my|the|their|his|her|our|a|this|that|next? record|pr|prs|time|times|score|personal_best|pb|goal|goals|target|targets|high_score|opponent|opponents|rival|team|competition|game|race|deadline|deadlines|inbox|workout|leg_day|presentation|exam|interview|test|cravings|habit|addiction|procrastination|streak|quota|numbers|boss|level|wall|snooze|plateau|traffic|rush|heat"), kinds: [.harmToOthers, .abuse, .selfHarm]),
        Veto(pattern: TokenPattern("shoot|shooting my_shot|a|the|some|photos|video|videos|film|hoops|for|an_email|a_message|a_text|him_a|her_a|them_a|me_a|me_an|the_breeze|my_shot|pool|content"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("photo|video|product shoot|shoots"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("attack|attacking|tackle|tackling the|this|my|that|a ~1 problem|day|week|task|project|list|backlog|goal|goals|mountain|hill|workout|presentation|pile|inbox|morning"), kinds: [.harmToOthers]),
        Veto(pattern: TokenPattern("hit|hits|hitting me up|with"), kinds: [.abuse, .thirdParty]),
        Veto(pattern: TokenPattern("it|that|reality|realization|news|truth|grief|loneliness|this hit|hits|hurt|hurts me"), kinds: [.abuse]),
        Veto(pattern: TokenPattern("grabbed|grabs|threw|throws|beat|beats|kicked|kicks me at|out|off|a|an|some|coffee|lunch|dinner|surprise|party|bone|curveball|again_at|at_chess|to_it"), kinds: [.abuse, .thirdParty]),
        Veto(pattern: TokenPattern("sparring|boxing|mma|bjj|jiujitsu|judo|karate|rugby|football|hockey|tackle|tackled|dodgeball|paintball|lacrosse|wrestling|kickboxing|krav|muay|taekwondo|fencing|pillow_fight|water_fight|snowball"), kinds: [.abuse, .thirdParty, .harmToOthers]),
        Veto(pattern: TokenPattern("dye my|her|his|the|it|hair|roots"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("disappear|vanish|escape|hide for|to a|the|some ~1 week|weekend|day|days|while|bit|month|holiday|vacation|hour|hours|cabin|island|beach"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("what|how would|do|should|can you|i|one say|respond|reply|answer|react|handle|help|support ~2 if|when|to someone|somebody|a_person|a_friend|a_user|a_client|people"), kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("gone for|on|to|away"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("could|would kill a|an man|horse|army|elephant"), kinds: [.harmToOthers, .thirdParty]),
        Veto(pattern: TokenPattern("drop dead|dead gorgeous|dead tired|dead on|dead serious|dead set|dead end|deadline|deadlines|dead_last|dead_weight|dead_inside_lol"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("going|gonna|will|would|could|about to? die|dying ~1 if|of|from"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("kill|killing|murder|strangle|strangling|throttle|beat|smack|slap ~1 him|her|them|my|the|you|your|this|that ~3 if|when|for|over|because ~4 fries|leftovers|food|snacks|coffee|cake|chocolate|pizza|car|phone|charger|spoilers|spoiler|show|socks|dishes|laundry|remote|late|again|snoring|chewing|forgets|forgot|ate|eats|eating|finished|drank|took|borrowed|wakes|woke|spoils|spoiled|leaves|left|touches|touched"), kinds: [.harmToOthers, .thirdParty]),
        // "My mum will kill me if I fail": a threat nobody made. Someone who *said* it ("he said he'd kill me if I
        // leave") is a real one, so a reporting verb in the clause keeps the cue.
        Veto(pattern: TokenPattern("will|would|going_to|gonna|ll ~1 kill|murder|strangle|skin|slaughter|throttle|end|destroy me ~2 if|when|for"),
             kinds: [.abuse],
             unless: ["said", "says", "told", "threatened", "threatens", "swore", "warned", "texted", "screamed", "yelled"]),
    ]

    static func vetoedKinds(_ words: [String], clause: Range<Int>) -> Set<CrisisKind> {
        var kinds = Set<CrisisKind>()
        for veto in vetoes where !veto.kinds.isSubset(of: kinds) && veto.pattern.firstMatch(in: words, range: clause) != nil {
            if !veto.unless.isEmpty, words[clause].contains(where: veto.unless.contains) { continue }
            kinds.formUnion(veto.kinds)
        }
        return kinds
    }
}
