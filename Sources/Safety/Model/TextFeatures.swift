/// The word and letter features both trained classifiers read (``CrisisFeatures`` and ``ModerationFeatures``):
///
/// - `w:<word>` every word, `nw:<word>` a word after a negation in its clause ("not" … "safe"), `b:<a> <b>` every
///   pair of neighbouring words in a clause; a word inside a span the reader weakened is read as `<reason>:<word>`
///   instead of `w:` (`past:cut`);
/// - `c:<letters>` every run of three or four letters within a word, its edges marked by spaces (` cut`, `utti`…):
///   spellings, typos and word forms the training sets never had share most of them.
///
/// The word features and the letter features are each scaled to unit length (every present feature
/// 1/√count, the count taken as at least ``wordBlockFloor`` and ``letterBlockFloor``), so a long text's words do
/// not drown the rest and a short text's few words do not decide alone.
enum TextFeatures {
    /// Adds both blocks, scaled.
    static func addBlocks(_ tokens: Tokens, weakened: [Int: String], to features: inout some FeatureSink) {
        var name = FeatureName()
        var previous: Tokens.Token?
        var negated = false
        for (index, token) in tokens.tokens.enumerated() {
            if previous?.clause != token.clause { (previous, negated) = (nil, false) }
            name.start(weakened[index] ?? "w")
            name.append(UInt8(ascii: ":"))
            name.append(token.word)
            features.addToBlock(name)
            if negated {
                name.start("nw:")
                name.append(token.word)
                features.addToBlock(name)
            }
            if Negation.words.contains(token.word) { negated = true }
            if let previous {
                name.start("b:")
                name.append(previous.word)
                name.append(UInt8(ascii: " "))
                name.append(token.word)
                features.addToBlock(name)
            }
            previous = token
        }
        features.closeBlock(countedAsAtLeast: wordBlockFloor)
        letters(tokens, into: &features)
        features.closeBlock(countedAsAtLeast: letterBlockFloor)
    }

    /// Adds the `c:` features to the current block: every run of three or four bytes of each word's UTF-8, spaces
    /// marking its edges, that starts and ends on a scalar boundary. Words are lowercase and accent-free, so in
    /// English a byte is a letter; in Greek or Cyrillic a run is one or two letters, in CJK one character. Built
    /// from bytes without going through `Character`s: on a long message this is most of the features.
    static func letters(_ tokens: Tokens, into features: inout some FeatureSink) {
        var name = FeatureName("c:")
        let prefix = name.bytes.count
        var padded: [UInt8] = []
        for token in tokens.tokens {
            padded.removeAll(keepingCapacity: true)
            padded.append(UInt8(ascii: " "))
            padded.append(contentsOf: token.word.utf8)
            padded.append(UInt8(ascii: " "))
            for length in letterRun where length <= padded.count {
                for start in 0...(padded.count - length) {
                    let end = start + length
                    guard !isContinuation(padded[start]), end == padded.count || !isContinuation(padded[end]) else { continue }
                    name.truncate(to: prefix)
                    name.append(padded[start..<end])
                    features.addToBlock(name)
                }
            }
        }
    }

    static let letterRun = 3...4
    /// A block is scaled as if it had at least this many features: a short message's few words would otherwise
    /// each weigh far more than any word of the long messages most training lines are ("Tell me" was abuse).
    static let wordBlockFloor = 16
    static let letterBlockFloor = 40

    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0b1100_0000 == 0b1000_0000 }
}
