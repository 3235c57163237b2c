/// Who does what to whom: the second reader next to the phrase cues. Around each act of violence in a clause it
/// finds the doer (the nearest person before it) and the one it is done to (the nearest person or body part
/// after it), and the pair decides the kind —
///
/// | doer → done to | kind |
/// |---|---|
/// | the writer → the writer ("punch the wall till my knuckles bleed", "bite my arm") | self-harm |
/// | someone → the writer ("he spits on me", "dad throws stuff at me", "got pushed down the stairs") | abuse |
/// | the writer → someone ("I grabbed him by the throat", "picturing stabbing him") | harm to others |
/// | someone → someone ("her boyfriend hits her", "his wife holds a knife to him") | third party |
///
/// It catches the long tail of plain descriptions no phrase list anticipates, at a lower weight than a cue.
enum Roles {
    enum Party: Equatable {
        case writer
        case other
    }

    /// Acts and how serious each is on its own.
    static let acts: [String: Double] = {
        var acts: [String: Double] = [:]
        for word in ["choke", "choked", "chokes", "choking", "strangle", "strangled", "strangles", "strangling", "stab", "stabbed",
                     "stabbing", "stabs", "smother", "smothered", "smothering", "drown", "drowned", "drowning", "poison", "poisoned",
                     "poisoning", "drug", "drugged", "drugging", "rape", "raped", "raping", "molest", "molested", "molesting", "suffocate",
                     "suffocating", "shoot", "shot", "shooting"] { acts[word] = 0.9 }
        for word in ["hit", "hits", "hitting", "punch", "punched", "punches", "punching", "slap", "slapped", "slaps", "slapping",
                     "kick", "kicked", "kicks", "kicking", "beat", "beats", "beating", "shove", "shoved", "shoves", "shoving", "spit",
                     "spits", "spat", "spitting", "bite", "bites", "bit", "biting", "burn", "burned", "burnt", "burns", "burning",
                     "cut", "cuts", "cutting", "carve", "carved", "carving", "scratch", "scratched", "scratching", "smack", "smacked",
                     "smacks", "whip", "whipped", "belt", "belted", "pinned", "pin", "pins", "slam", "slammed", "slams", "slamming",
                     "bang", "banged", "banging", "throttle", "throttled", "shake", "shook", "shaking", "stomp", "stomped", "headbutt",
                     "headbutted", "attack", "attacked", "attacking", "assault", "assaulted", "abuse", "abused", "abusing",
                     "throw", "throws", "threw", "thrown", "throwing", "pushed", "push", "pushes", "pushing", "grab", "grabbed", "grabs",
                     "grabbing", "hurt", "hurts", "hurting", "harm", "harmed", "harming", "kill", "killed", "killing", "murder",
                     "murdered", "pinch", "pinched", "pinching", "twist", "twisted", "dig", "digging"] { acts[word] = 0.7 }
        return acts
    }()

    /// Acts a person does to their own body when self-harming (not "threw myself into work").
    static let injuring: Set<String> = [
        "cut", "cuts", "cutting", "burn", "burned", "burnt", "burns", "burning", "carve", "carved", "carving", "scratch",
        "scratched", "scratching", "hit", "hits", "hitting", "punch", "punched", "punching", "bang", "banged", "banging",
        "slam", "slammed", "slamming", "bite", "bit", "biting", "stab", "stabbed", "pinch", "pinched", "pinching", "dig",
        "digging", "smack", "smacked", "whip", "whipped", "choke", "choked", "strangle", "strangled", "hurt", "hurting", "harm", "harming",
    ]

    static let body: Set<String> = [
        "arm", "arms", "wrist", "wrists", "thigh", "thighs", "hip", "hips", "leg", "legs", "skin", "palm", "palms", "knuckles",
        "head", "neck", "throat", "stomach", "face", "hand", "hands", "chest", "ribs", "body", "fingers", "nails", "hair", "belly",
    ]
    static let reflexive: Set<String> = ["himself", "herself", "themselves", "themself"]
    static let others: Set<String> = Subject.others.union([
        "old",
        "stranger", "strangers", "cyclist", "cyclists", "landlord", "manager", "boss", "coach", "teacher", "husbands", "wifes",
        "ex", "gf", "bf", "mum", "dads", "moms", "lady", "guy", "kid", "twins", "infant", "newborn", "one", "himself",
        "herself", "themselves", "somebody", "anyone",
    ]).subtracting(["character", "everyone", "people", "person"])
    /// Who an act can be done to: people, and animals ("kicked the cat across the room"), which are never doers.
    static let targets: Set<String> = others.union(animals)
    static let animals: Set<String> = ["cat", "dog", "puppy", "kitten", "pet", "cats", "dogs"]
    /// Words after "her" that make it the object, not an owner.
    static let objectFollows: Set<String> = [
        "against", "into", "in", "on", "to", "with", "at", "down", "up", "around", "over", "off", "out", "so", "until",
        "till", "hard", "again", "and", "when", "because", "if", "then", "while", "every", "for", "across", "onto",
    ]
    static let possessive: [String: Party] = ["my": .writer, "his": .other, "her": .other, "their": .other]
    static let passive: Set<String> = ["got", "get", "gets", "getting", "been", "being", "was", "were", "am"]
    /// Accidents and sport, not harm.
    static let accidental: Set<String> = [
        "cooking", "chopping", "shaving", "oven", "stove", "pan", "iron", "accident", "tripped", "slipped", "fell",
        "gym", "workout", "lifting", "sparring", "boxing", "bag", "match", "game", "training", "practice", "tackle",
        "hairdryer", "curling", "straightener", "kitchen", "garden", "gardening", "paper", "sunburn", "sun",
        "range", "clay", "clays", "archery", "paintball", "laser", "airsoft", "nerf", "photos", "photo", "hoops",
    ]
    /// Where the one an act is done to must already have been named: "slammed the door and said she hates me"
    /// is not an act on "she".
    static let targetStops: Set<String> = [
        "and", "then", "so", "because", "when", "while", "after", "before", "if", "said", "says", "told", "but",
    ]

    struct Finding: Equatable {
        let kind: CrisisKind
        let weight: Double
        let span: Range<Int>
    }

    static func find(_ words: [String], clause: Range<Int>) -> [Finding] {
        var findings: [Finding] = []
        for index in clause {
            guard let strength = acts[words[index]] else { continue }
            // "my dog bit the neighbour's kid": an animal's act, not a person's.
            if index > clause.lowerBound, animals.contains(words[index - 1]) { continue }
            let doer = self.doer(words, act: index, clause: clause)
            guard let target = self.target(words, act: index, clause: clause) else { continue }
            let kind: CrisisKind
            switch (doer?.party, target.party) {
            case (.writer?, .writer):
                guard injuring.contains(words[index]), target.body || words[target.index] == "myself",
                      !isAccident(words, clause: clause) else { continue }
                kind = .selfHarm
            case (.other?, .writer):
                kind = .abuse
            case (nil, .writer):
                if index > clause.lowerBound, passive.contains(words[index - 1]) {
                    kind = .abuse
                } else if target.body, injuring.contains(words[index]) {
                    // "burned my wrist with a lighter": the writer, unnamed, did it.
                    if isAccident(words, clause: clause) { continue }
                    kind = .selfHarm
                } else {
                    continue
                }
            case (.writer?, .other):
                kind = .harmToOthers
            case (.other?, .other):
                if let doer, isChildsPlay(words, doer: doer.index, target: target.index) { continue }
                kind = .thirdParty
            case (_, .other) where reflexive.contains(words[target.index]):
                // "wants to kill himself": their risk, whoever tells it.
                kind = .thirdParty
            case (nil, .other):
                // "lost my temper and choked my girlfriend": chat drops the "I", not the doer.
                guard words[clause].contains(where: { $0 == "my" || $0 == "i" }) || index == clause.lowerBound else { continue }
                kind = .harmToOthers
            }
            // Someone hurting someone else is usually serious only with a serious act ("holds a knife to him").
            let weight = kind == .thirdParty && strength < 0.9 ? 0.5 : strength * 0.85
            findings.append(Finding(kind: kind, weight: weight, span: index..<(target.index + 1)))
        }
        return findings
    }

    /// The nearest person before the act in the clause ("my son mouthed off and i grabbed him": the writer).
    static func doer(_ words: [String], act: Int, clause: Range<Int>) -> (party: Party, index: Int)? {
        for index in stride(from: act - 1, through: max(clause.lowerBound, act - 7), by: -1) {
            let word = words[index]
            if word == "i" { return (.writer, index) }
            if others.contains(word), !body.contains(words[min(index + 1, clause.upperBound - 1)]) { return (.other, index) }
        }
        return nil
    }

    /// Children hitting, biting or shoving other children ("my toddler bit his sister", "he hit another kid at
    /// recess"): a parenting question, not someone at risk.
    static func isChildsPlay(_ words: [String], doer: Int, target: Int) -> Bool {
        young.contains(words[doer]) || (target > 0 && ["another", "other"].contains(words[target - 1]))
    }
    static let young: Set<String> = [
        "toddler", "toddlers", "baby", "kid", "kids", "child", "children", "son", "daughter", "boy", "girl", "old",
        "olds", "teen", "teenager", "nephew", "niece", "twins", "classmate", "classmates", "preschooler",
    ]

    /// The nearest person or body part after the act: "hit him", "throws stuff at me", "grabbed her arm",
    /// "till my knuckles bleed". Something owned that is not a body ("smashed her phone") is not a person.
    static func target(_ words: [String], act: Int, clause: Range<Int>) -> (party: Party, body: Bool, index: Int)? {
        var index = act + 1
        while index < min(clause.upperBound, act + 6) {
            let word = words[index]
            if targetStops.contains(word) { return nil }
            if let owner = possessive[word], index + 1 < clause.upperBound {
                let next = words[index + 1]
                if body.contains(next) { return (owner, true, index + 1) }
                if targets.contains(next) { return (.other, false, index + 1) }
                if index + 2 < clause.upperBound, body.contains(words[index + 2]) { return (owner, true, index + 2) }
                if index + 2 < clause.upperBound, targets.contains(words[index + 2]) { return (.other, false, index + 2) }
                // "slammed her against the wall": "her" is the one; "slammed her door": it is a door.
                if owner == .other, word == "her", objectFollows.contains(next) { return (.other, false, index) }
                return nil
            }
            // An object pronoun: "i" after an act starts a new statement ("pushed a direction i disagreed with").
            if word == "me" || word == "myself" { return (.writer, false, index) }
            if targets.contains(word) { return (.other, false, index) }
            index += 1
        }
        return nil
    }

    /// Cooking, sport or a fall, unless the clause says it was on purpose.
    static func isAccident(_ words: [String], clause: Range<Int>) -> Bool {
        let text = words[clause]
        guard text.contains(where: accidental.contains) else { return false }
        return !(text.contains("purpose") || text.contains("deliberately") || text.contains("intentionally"))
    }
}
