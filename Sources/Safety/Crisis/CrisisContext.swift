/// What around a cue changes its meaning: the four readers ``CrisisRules`` applies.

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

    /// "…thoughts of harming myself, and I'm genuinely not": a denial closing the clause after the cue.
    static let denialAfter = TokenPattern("@self am|was|do|have|m ~2 not|never $")

    static func denies(_ keyed: KeyedWords, span: Range<Int>, clause: Range<Int>) -> Bool {
        deniedBefore(keyed.words, start: span.lowerBound, clauseStart: clause.lowerBound)
            || denialAfter.firstMatch(in: keyed, range: span.upperBound..<clause.upperBound) != nil
    }

    /// "I won't eat again until He takes me home": a conjunction between them ends the denial's reach.
    static let scopeEnds: Set<String> = ["until", "till", "because", "unless", "so", "when", "since", "after", "before"]

    private static func deniedBefore(_ words: [String], start: Int, clauseStart: Int) -> Bool {
        if scopeEnds.contains(words[start]) { return false }
        let from = max(clauseStart, start - 4)
        for index in stride(from: start - 1, through: from, by: -1) {
            if scopeEnds.contains(words[index]) { return false }
            guard Self.words.contains(words[index]) else { continue }
            if index + 1 < start, releasedBy.contains(words[index + 1]) { return false }
            if index > clauseStart, questionedBy.contains(words[index - 1]) { return false }
            // "it's not like anyone would notice": an affirmation dressed as a denial.
            if index > clauseStart, words[index - 1] == "its", index + 1 < start, words[index + 1] == "like" { return false }
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

    /// `next` is the clause after this one: a tag there can carry the past into now ("I used to cut myself,
    /// still do", "…and I think about it again").
    init(_ keyed: KeyedWords, clause: Range<Int>, next: Range<Int>?, message: MessageTense) {
        let words = keyed.words
        let here = Self.markers(words[clause])
        if here.recent || next.map({ Self.continuation.firstMatch(in: keyed, range: $0) != nil }) == true {
            isDistantPast = false
        } else if here.distant {
            isDistantPast = true
        } else {
            isDistantPast = (message.distant || message.handled) && !message.recent
                && words[clause].contains(where: Self.pastVerbs.contains)
        }
    }

    static let continuation = TokenPattern("still_do|still_does|still_am|still_is|still_happens|still_happening|it_again")

    struct Markers {
        var distant = false
        var recent = false
        var handled = false
    }

    static func markers(_ words: ArraySlice<String>) -> Markers {
        var markers = Markers()
        var resolved = false
        var relapsed = false
        for index in words.indices {
            let word = words[index]
            let pair = Pair(word, index + 1 < words.endIndex ? words[index + 1] : "")
            let next = pair.second
            if resolvedPairs.contains(pair) { resolved = true }
            if handledPairs.contains(pair) { markers.handled = true }
            if word == "relapsed" || word == "again" { relapsed = true }
            if recentWords.contains(word) || recentPairs.contains(pair) { markers.recent = true }
            if distantWords.contains(word) || distantPairs.contains(pair) { markers.distant = true }
            if word == "when", next == "i", index + 3 < words.endIndex, ["was", "were"].contains(words[index + 2]),
               isLifeStage(words, at: index + 3) { markers.distant = true }
            if let year = Int(word), (1950...2023).contains(year) { markers.distant = true }
            if word == "at" || word == "age", let age = Int(next), (5...25).contains(age) { markers.distant = true }
            if Int(word) != nil || numberWords.contains(word), ["years", "yrs", "decade", "decades"].contains(next) { markers.distant = true }
        }
        if resolved, !relapsed { markers.distant = true; markers.recent = false }
        return markers
    }

    /// "when I was 16", "when I was a kid", "when I was in school" date a time long past; "when I was asleep" does not.
    static func isLifeStage(_ words: ArraySlice<String>, at index: Int) -> Bool {
        let word = words[index]
        if Int(word) != nil || lifeStages.contains(word) { return true }
        return ["in", "at"].contains(word) && index + 1 < words.endIndex && schools.contains(words[index + 1])
    }
    static let lifeStages: Set<String> = ["young", "younger", "little", "small", "a", "an", "growing", "kid", "child", "teen", "teenager"]
    static let schools: Set<String> = ["school", "college", "uni", "university", "high", "primary", "secondary", "middle", "year", "grade", "my"]

    /// Two words in a row, compared without building a string for every word of every message.
    struct Pair: Hashable {
        let first: String
        let second: String
        init(_ first: String, _ second: String) { (self.first, self.second) = (first, second) }
        init(_ text: String) {
            let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
            self.init(parts[0], parts[1])
        }
    }
    static func pairs(_ texts: [String]) -> Set<Pair> { Set(texts.map(Pair.init)) }

    static let distantWords: Set<String> = [
        "childhood", "adolescence", "twenties", "decade", "decades", "recovered",
        "survived", "overcame", "formerly", "previously", "faded", "healed",
    ]
    static let distantPairs = pairs([
        "used to", "years ago", "year ago", "long ago", "back in", "back then", "the past", "as a",
        "high school", "in college", "in uni", "at uni", "in university", "growing up", "been clean", "years clean",
        "ago now", "last year", "years back", "time ago", "ages ago", "for ages", "grew up",
        "are old", "old and", "growing up", "my teens", "a teenager", "a teen",
    ])
    /// Recovery: long past whatever else the clause says ("6 years clean as of today").
    static let resolvedPairs = pairs([
        "years clean", "months clean", "clean for", "clean since", "been clean", "in recovery", "recovered from",
        "years free", "years sober",
    ])
    static let recentWords: Set<String> = [
        "again", "tonight", "today", "yesterday", "relapsed", "relapse", "still", "lately", "recently", "currently",
        "tomorrow", "constantly",
    ]
    static let recentPairs = pairs([
        "last night", "last week", "this week", "this morning", "right now", "these days", "this month",
        "past few", "few days", "started again", "every day", "every night",
    ])
    static let pastVerbs: Set<String> = [
        "was", "were", "wanted", "tried", "attempted", "felt", "thought", "had", "did", "cut", "harmed", "struggled",
        "went", "used", "hit", "hurt", "took", "made", "got", "left", "grew", "said", "told",
    ]
    /// Someone else's risk already in hand: "I followed protocol and she's getting support".
    static let handledPairs = pairs([
        "followed protocol", "getting support", "getting help", "is safe", "are safe", "was safeguarded", "referred her",
        "referred him", "referred them", "in treatment",
    ])
    static let numberWords: Set<String> = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "many", "several", "few"]
}

/// The distant/recent markers of a whole message, read once.
struct MessageTense {
    let distant: Bool
    let recent: Bool
    /// Someone else's risk is already being dealt with ("followed protocol", "she's getting support").
    let handled: Bool

    init(_ words: [String]) {
        let markers = Tense.markers(words[...])
        (distant, recent, handled) = (markers.distant, markers.recent, markers.handled)
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

    /// "my novels villain" (no apostrophe): plurals count too. A "story" someone posts ("on his story") is a social
    /// media post, not fiction.
    static func isFramed(_ words: [String]) -> Bool {
        words.indices.contains { index in
            let word = words[index]
            guard Self.words.contains(word) || (word.hasSuffix("s") && Self.words.contains(String(word.dropLast()))) else { return false }
            return !(word.hasPrefix("stor") && index > 0 && postedOn.contains(words[index - 1]))
        }
    }
    static let postedOn: Set<String> = ["his", "her", "my", "their", "insta", "instagram", "snapchat", "snap", "facebook", "whatsapp", "ig"]
}

/// A crisis word as the subject of work or study rather than the writer's state: "suicide risk assessments",
/// "a domestic violence shelter", "warning signs of elder abuse", "attended a suicide today".
enum Topic {
    /// Nouns that make the crisis word a field: "suicide prevention", "abuse law".
    static let after: Set<String> = [
        "risk", "risks", "prevention", "awareness", "assessment", "assessments", "law", "laws", "shelter", "shelters",
        "hotline", "helpline", "helplines", "charity", "charities", "research", "statistics", "stats", "rates", "rate",
        "survivors", "training", "policy", "policies", "services", "cases", "calls", "figures", "factors", "screening",
        "protocol", "protocols", "module", "lecture", "campaign", "unit", "team", "clinic", "workshop", "course",
    ]
    /// Words just before it that make it an event or a subject: "a suicide", "signs of abuse", "researching suicide".
    static let before: Set<String> = [
        "a", "signs", "researching", "research", "studying", "study", "spotting", "recognising", "recognizing",
        "preventing", "prevent", "elder", "teen", "youth", "student", "discussing", "covering", "teaching", "project",
        "assignment", "essay", "presentation", "report",
    ]

    static func isTopic(_ words: [String], span: Range<Int>, clause: Range<Int>) -> Bool {
        if span.upperBound < clause.upperBound, after.contains(words[span.upperBound]) { return true }
        let from = max(clause.lowerBound, span.lowerBound - 3)
        return words[from..<span.lowerBound].contains(where: before.contains)
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
    static func isSomeoneElse(_ tokens: [Tokens.Token], before start: Int, clauseStart: Int) -> Bool {
        nearest(tokens, before: start, clauseStart: clauseStart, writer: writer) == .other
    }

    /// The cue names the writer ("myself", "hit me", "end my life") or the writer is its subject ("I", not the
    /// "my" of "my novel's villain").
    static func isWriter(_ tokens: [Tokens.Token], span: Range<Int>, clauseStart: Int) -> Bool {
        tokens[span].contains { writer.contains($0.word) }
            || nearest(tokens, before: span.lowerBound, clauseStart: clauseStart, writer: ["i", "me"]) == .writer
    }

    /// Who the nearest person word in the six before `start` (within the clause) is, if any. An owner is not a
    /// subject: in "I've got my dad's gun" the writer acts.
    static func nearest(_ tokens: [Tokens.Token], before start: Int, clauseStart: Int, writer: Set<String>) -> Roles.Party? {
        for index in stride(from: start - 1, through: max(clauseStart, start - 6), by: -1) where !tokens[index].possessive {
            if writer.contains(tokens[index].word) { return .writer }
            if others.contains(tokens[index].word) { return .other }
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

/// Everyday speech that uses crisis words — hyperbole, sport, cooking, haircuts, leaving a job — and questions
/// about risk rather than disclosures: each veto names the kinds it cancels in its clause.
enum Figurative {
    struct Veto {
        let pattern: TokenPattern
        let kinds: Set<CrisisKind>
        /// Words that, anywhere in the clause, keep the cue after all.
        var unless: Set<String> = []
    }

    static let vetoes: [Veto] = [
        // Present-tense hyperbole about the writer: "my boss is killing me", "the commute is taking my life".
        Veto(pattern: TokenPattern("is|are|s|keeps|keep killing|murdering me"), kinds: [.abuse, .thirdParty, .harmToOthers]),
        Veto(pattern: TokenPattern("is|are|keeps|keep ~1 taking|stealing|eating|sucking my life"), kinds: [.suicidal]),
        // People who cannot really be meant: "my spanish teacher is going to murder me".
        Veto(pattern: TokenPattern("teacher|boss|manager|coach|tutor|lecturer|professor|supervisor|editor|client|trainer|team ~3 kill|murder|destroy me"),
             kinds: [.abuse], unless: ["threatened", "threatens", "swore"]),
        Veto(pattern: TokenPattern("could|would|can murder|kill|demolish|destroy a|an|some|the_whole ~1 curry|pint|beer|coffee|pizza|burger|kebab|sandwich|drink|cuppa|tea|steak|burrito|takeaway|chips|fries|cake|wine|nap|meal|bacon|donut"),
             kinds: [.harmToOthers]),
        Veto(pattern: TokenPattern("so|really|too annoying|irritating|infuriating|frustrating|annoyed|mad ~5 could|would|will|gonna|going_to kill|murder|strangle|throttle"),
             kinds: [.harmToOthers, .thirdParty], unless: ["scared", "afraid", "worried", "terrified", "frightened"]),
        // Encouragement and cooking: "push him to apply", "bringing a knife to cut the cake".
        Veto(pattern: TokenPattern("push|pushes|pushed|pushing ~1 me|myself|@person to|into ~1 apply|do|be|try|work|study|improve|finish|change|take|quit|keep|join|get|sign|train|speak|stay|succeed|applying|trying"),
             kinds: [.harmToOthers, .abuse, .thirdParty, .selfHarm]),
        Veto(pattern: TokenPattern("knife|knives ~5 cake|bread|cheese|steak|carve|carving|slice|slicing|chop|chopping|cooking|kitchen|vegetables|veg|onions|meat|fruit|butter|apple|apples|lunch|picnic|camping|fishing|whittling"),
             kinds: [.harmToOthers, .selfHarm]),
        Veto(pattern: TokenPattern("could|would sleep forever|for_a_week|for_days|for_a_year"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("dying|dyeing my|her|his|their|the? hair|roots|clothes|shirt|fabric|eggs"), kinds: [.suicidal, .thirdParty]),
        // A child or a pet wandering in: "my toddler keeps coming into the bathroom when I shower".
        Veto(pattern: TokenPattern("toddler|baby|kid|kids|son|daughter|cat|dog|puppy|kitten ~2 comes|came|coming|walks|walking|barges|barging|gets ~1 into|in"), kinds: [.abuse]),
        // Water and thrills: "can't stop thinking about jumping into the sea on holiday".
        Veto(pattern: TokenPattern("swim|swimming|dive|diving|snorkel|snorkelling|holiday|vacation|bungee|skydiving|parachute|trampoline|waterfall"),
             kinds: [.suicidal], unless: ["die", "dead", "end", "kill", "never", "drown"]),
        Veto(pattern: TokenPattern("rather die|be_dead than"), kinds: [.suicidal], unless: ["literally", "seriously"]),
        // Ending a relationship, a hobby or a plan: "I'm ending it with my boyfriend tonight".
        Veto(pattern: TokenPattern("end|ending|ended|finish|finishing it|things with|between"), kinds: [.suicidal]),
        // "…if I hear 'circle back' one more time": exasperation, not a plan.
        Veto(pattern: TokenPattern("if ~6 one_more_time|once_more|one_more"), kinds: [.suicidal, .selfHarm]),
        Veto(pattern: TokenPattern("overdose|overdosed|overdosing|od on|of caffeine|coffee|sugar|vitamins|vitamin|chocolate|cuteness|espresso|energy_drinks|sun|netflix|memes"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("@reflexself|@reflexother laughing"), kinds: [.suicidal, .selfHarm]),
        // Cutting as pruning: "cutting ties with my toxic friends", "cut costs", "had my hair cut again".
        Veto(pattern: TokenPattern("cut|cutting|cuts out|down|back? on? ties|costs|corners|back|down|carbs|sugar|dairy|gluten|alcohol|caffeine|meat|junk|snacks|class|classes|loose|contact|spending|losses|budget"), kinds: [.harmToOthers, .selfHarm, .thirdParty]),
        Veto(pattern: TokenPattern("hair|fringe|bangs|grass|lawn|hedge|nails|cake|onions|fabric|coupons|power|paper|price|tax|pay|budget ~1 cut|cutting|cuts"), kinds: [.selfHarm]),
        Veto(pattern: TokenPattern("cut|cutting|cuts|trim|trimming ~2 hair|fringe|bangs|grass|lawn|hedge|nails|cake|onions|fabric|coupons"), kinds: [.selfHarm]),
        Veto(pattern: TokenPattern("burned|burnt|burn|burning the|my? toast|dinner|food|rice|pizza|cake|bread|pan|cookies|popcorn|eggs|bacon|lunch|meal|candle|calories"), kinds: [.selfHarm]),
        // Everyday injuries, unless the clause says they were meant.
        Veto(pattern: TokenPattern("shaving|cooking|chopping|accidentally|paper_cut|sunburn|sunburnt|sunburned|tripped"), kinds: [.selfHarm],
             unless: ["purpose", "deliberately", "intentionally"]),
        // Leaving a platform, a group or a job: "posted a goodbye because she's leaving twitter".
        Veto(pattern: TokenPattern("leaving|quitting|deleting|retiring|moving ~2 twitter|x|instagram|insta|facebook|tiktok|snapchat|reddit|discord|social_media|the_group|the_team|the_company|work|job|school|town|the_country"),
             kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("warm_it_up|warm_up|warming_up|defrost|defrosting|jump_start|mechanic"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("roof|rooftop ~1 bar|terrace|garden|party|pool|deck|restaurant"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("disappear|vanish into a|the|my ~1 book|novel|film|game|show|series|hobby|music|work|job|crowd"), kinds: [.suicidal]),
        // A parent's reasoned oversight: "my mum tracks my phone because I drive at night".
        Veto(pattern: TokenPattern("mom|dad|parents|mum ~3 tracks|track|tracking|checks|check ~5 because|so|since"), kinds: [.abuse]),
        Veto(pattern: TokenPattern("killing|killed|kill|kills|slay|slaying|slayed|murder|murdered|murdering|nailed|crushed|crushing|smashed|smashing it|this|that"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("kill|killing|die|dying|murder for|over a|an|some|one"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("to die for"), kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("dying|die|dead to|for see|try|know|get|go|meet|hear|read|watch|tell|start|eat|have|find|share|show|try"), kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("die|died|dying|dead of|from|with|laughing laughter|laughing|embarrassment|shame|boredom|cringe|cuteness|jealousy|envy|excitement|curiosity|heat|hunger|thirst|happiness|joy|anticipation|suspense|secondhand|second_hand|fomo|cold"), kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("kill|killing time|two_birds|the_lights|the_engine|the_music|the_mood|the_vibe|it|the_game|the_interview|the_presentation|the_exam|the_test|the_workout|my_workout|my_presentation|my_interview|the_bugs|the_process|the_app|my_cravings|the_cravings|the_noise|the_pain|weeds|the_weeds"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("beat|beating|smash|crush|destroy|destroying|crushing|kill|murder|hit my|the|their|his|her|our|a|this|that|next? record|pr|prs|time|times|score|personal_best|pb|goal|goals|target|targets|high_score|opponent|opponents|rival|team|competition|game|race|deadline|deadlines|inbox|workout|leg_day|presentation|exam|interview|test|cravings|habit|addiction|procrastination|streak|quota|numbers|boss|level|wall|snooze|plateau|traffic|rush|heat"), kinds: [.harmToOthers, .abuse, .selfHarm]),
        Veto(pattern: TokenPattern("shoot|shooting my_shot|a|the|some|photos|video|videos|film|hoops|for|an_email|a_message|a_text|him_a|her_a|them_a|me_a|me_an|the_breeze|my_shot|pool|content"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("photo|video|product shoot|shoots"), kinds: [.harmToOthers, .suicidal]),
        Veto(pattern: TokenPattern("attack|attacking|tackle|tackling the|this|my|that|a ~1 problem|day|week|task|project|list|backlog|goal|goals|mountain|hill|workout|presentation|pile|inbox|morning"), kinds: [.harmToOthers]),
        Veto(pattern: TokenPattern("hit|hits|hitting me up"), kinds: [.abuse, .thirdParty]),
        Veto(pattern: TokenPattern("hit|hits|hitting me with a|the|this|that|some ~1 news|question|questions|truth|facts|reality|idea|request|bill|deadline|joke|email|text|message|comment|line|update|feedback"), kinds: [.abuse, .thirdParty]),
        Veto(pattern: TokenPattern("it|that|reality|realization|news|truth|grief|loneliness|this hit|hits|hurt|hurts me"), kinds: [.abuse]),
        Veto(pattern: TokenPattern("grabbed|grabs|threw|throws|beat|beats|kicked|kicks me at|out|off|a|an|some|coffee|lunch|dinner|surprise|party|bone|curveball|again_at|at_chess|to_it"), kinds: [.abuse, .thirdParty]),
        Veto(pattern: TokenPattern("sparring|boxing|mma|bjj|jiujitsu|judo|karate|rugby|football|hockey|tackle|tackled|dodgeball|paintball|lacrosse|wrestling|kickboxing|krav|muay|taekwondo|fencing|pillow_fight|water_fight|snowball|rounders|baseball|softball|cricket"), kinds: [.abuse, .thirdParty, .harmToOthers]),
        Veto(pattern: TokenPattern("dye my|her|his|the|it|hair|roots"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("disappear|vanish|escape|hide for|to a|the|some ~1 week|weekend|day|days|while|bit|month|holiday|vacation|hour|hours|cabin|island|beach"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("what|how would|do|should|can you|i|one say|respond|reply|answer|react|handle|help|support ~2 if|when|to someone|somebody|a_person|a_friend|a_user|a_client|people"), kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("gone for|on|to|away"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("could|would kill a|an man|horse|army|elephant"), kinds: [.harmToOthers, .thirdParty]),
        Veto(pattern: TokenPattern("drop dead|dead gorgeous|dead tired|dead on|dead serious|dead set|dead end|deadline|deadlines|dead_last|dead_weight|dead_inside_lol"), kinds: [.suicidal]),
        Veto(pattern: TokenPattern("going|gonna|will|would|could|about to? die|dying ~1 if|of|from"), kinds: [.suicidal, .thirdParty]),
        Veto(pattern: TokenPattern("kill|killing|murder|strangle|strangling|throttle|beat|smack|slap ~1 him|her|them|my|the|you|your|this|that ~3 if|when|for|over|because ~4 fries|leftovers|food|snacks|coffee|cake|chocolate|pizza|car|phone|charger|spoilers|spoiler|show|socks|dishes|laundry|remote|late|again|snoring|chewing|forgets|forgot|ate|eats|eating|finished|drank|took|borrowed|wakes|woke|spoils|spoiled|leaves|left|touches|touched"), kinds: [.harmToOthers, .thirdParty]),
        // "My mum will kill me if I fail": a threat nobody made. Someone who *said* it ("he said he'd kill me if I
        // leave") is a real one, so a reporting verb in the clause keeps the cue.
        Veto(pattern: TokenPattern("will|would|going_to|gonna|ll ~1 kill|murder|strangle|skin|slaughter|throttle|end|destroy me ~2 if|when|for"),
             kinds: [.abuse],
             unless: ["said", "says", "told", "threatened", "threatens", "swore", "warned", "texted", "screamed", "yelled"]),
    ]

    /// Questions and hypotheticals about someone's risk: "my GP asked if I'm having thoughts of harming myself",
    /// "if a friend ever told me they were suicidal…". An answer in the clause ("and I said yes") keeps the cue.
    static let questions: [Veto] = [
        Veto(pattern: TokenPattern("asked|asks|asking|ask me|us? if|whether"), kinds: [.suicidal, .selfHarm], unless: ["yes", "admitted", "truth"]),
        Veto(pattern: TokenPattern("if|what_if|suppose ~4 ever"), kinds: [.suicidal, .selfHarm, .thirdParty]),
    ]

    static let all = vetoes + questions
    static let index = PatternIndex(all.map(\.pattern))

    static func vetoedKinds(_ keyed: KeyedWords, clause: Range<Int>) -> Set<CrisisKind> {
        let words = keyed.words
        var kinds = Set<CrisisKind>()
        for start in clause {
            for candidate in index.candidates(at: keyed.keys[start]) {
                let veto = all[candidate]
                guard !veto.kinds.isSubset(of: kinds), veto.pattern.match(keyed, at: start, limit: clause.upperBound) != nil else { continue }
                if !veto.unless.isEmpty, words[clause].contains(where: veto.unless.contains) { continue }
                kinds.formUnion(veto.kinds)
            }
        }
        return kinds
    }
}
