/// Where a feature extraction (``CrisisFeatures``, ``ModerationFeatures``, ``TextFeatures``) writes a text's
/// features. One extraction serves two sinks: ``NamedFeatures``, by name, for training, evidence and tests; and
/// ``HashedFeatures``, by a hash of the name, for scoring a message on the hot path.
///
/// A block (the words, the letter runs) is scaled to unit length once it is complete, so its features are noted
/// first and valued at ``closeBlock(countedAsAtLeast:)``. Each name is a feature once.
protocol FeatureSink {
    /// Sets the feature to `value`; with `keepingLarger`, a feature already set keeps the larger value.
    mutating func set(_ name: FeatureName, _ value: Double, keepingLarger: Bool)
    /// Notes a feature of the current block, unless it is already a feature.
    mutating func addToBlock(_ name: FeatureName)
    /// Values the current block's features 1/√count, the count taken as at least `floor`, and starts the next.
    mutating func closeBlock(countedAsAtLeast floor: Int)
}

extension FeatureSink {
    mutating func set(_ name: FeatureName, _ value: Double) { set(name, value, keepingLarger: false) }
}

/// A feature's name as UTF-8 in a reused buffer: a message has hundreds of features, and making each name a
/// `String` to hash it was most of the model's share of the crisis check (docs/performance-notes.md).
struct FeatureName {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(64) }

    init(_ text: String) {
        self.init()
        append(text)
    }

    /// Starts a new name with `prefix`, keeping the buffer.
    mutating func start(_ prefix: String) {
        bytes.removeAll(keepingCapacity: true)
        append(prefix)
    }

    /// Keeps the first `count` bytes: a run of names that share a prefix writes it once.
    mutating func truncate(to count: Int) { bytes.removeLast(bytes.count - count) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append(_ part: ArraySlice<UInt8>) { bytes.append(contentsOf: part) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// 64-bit FNV-1a of the UTF-8: stable across processes (``LinearModel`` files its rows under it at load).
    var hash: UInt64 { FeatureHash.of(bytes) }
}

enum FeatureHash {
    static func of(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// A table slot for `hash` among 2^`bits`: FNV's low bits are weak, so the hash is mixed first.
    static func slot(_ hash: UInt64, bits: Int) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
    }
}

/// Features by name: what training reads, what evidence names, and what tests look at.
struct NamedFeatures: FeatureSink {
    private(set) var values: [String: Double] = [:]
    private var block: [String] = []

    init(capacity: Int = 0) { values.reserveCapacity(capacity) }

    mutating func set(_ name: FeatureName, _ value: Double, keepingLarger: Bool) {
        let key = name.string
        values[key] = keepingLarger ? max(values[key] ?? value, value) : value
    }

    mutating func addToBlock(_ name: FeatureName) {
        let key = name.string
        guard values[key] == nil else { return }
        values[key] = 1
        block.append(key)
    }

    mutating func closeBlock(countedAsAtLeast floor: Int) {
        if !block.isEmpty {
            let value = 1 / Double(max(block.count, floor)).squareRoot()
            for key in block { values[key] = value }
        }
        block.removeAll(keepingCapacity: true)
    }
}

/// Features by the ``FeatureHash`` of their names, in the order first noted: what scoring reads. Two of a message's
/// features, or one of them and a model feature, share a hash only by a 1-in-2^64 accident per pair; the model's
/// own features are checked to be distinct when it loads.
struct HashedFeatures: FeatureSink {
    private(set) var hashes: [UInt64] = []
    private(set) var values: [Double] = []
    /// Open addressing over ``hashes``: each slot holds an index + 1, or 0 when empty.
    private var slots: [Int32]
    private var bits: Int
    /// The indices of the current block's features.
    private var block: [Int] = []

    init() {
        bits = 10
        slots = [Int32](repeating: 0, count: 1 << bits)
        hashes.reserveCapacity(256)
        values.reserveCapacity(256)
        block.reserveCapacity(256)
    }

    var count: Int { hashes.count }

    mutating func set(_ name: FeatureName, _ value: Double, keepingLarger: Bool) {
        let hash = name.hash
        if let index = index(of: hash) {
            values[index] = keepingLarger ? max(values[index], value) : value
        } else {
            insert(hash, value)
        }
    }

    mutating func addToBlock(_ name: FeatureName) {
        let hash = name.hash
        // Like a block feature named twice, a name that is already a feature stays as it is and out of the block.
        guard index(of: hash) == nil else { return }
        block.append(hashes.count)
        insert(hash, 1)
    }

    mutating func closeBlock(countedAsAtLeast floor: Int) {
        if !block.isEmpty {
            let value = 1 / Double(max(block.count, floor)).squareRoot()
            for index in block { values[index] = value }
        }
        block.removeAll(keepingCapacity: true)
    }

    private func index(of hash: UInt64) -> Int? {
        let mask = slots.count - 1
        var slot = FeatureHash.slot(hash, bits: bits)
        while slots[slot] != 0 {
            let index = Int(slots[slot]) - 1
            if hashes[index] == hash { return index }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func insert(_ hash: UInt64, _ value: Double) {
        hashes.append(hash)
        values.append(value)
        // At most half full keeps probes short.
        if hashes.count * 2 > slots.count {
            bits += 1
            slots = [Int32](repeating: 0, count: 1 << bits)
            for index in hashes.indices { place(index) }
        } else {
            place(hashes.count - 1)
        }
    }

    private mutating func place(_ index: Int) {
        let mask = slots.count - 1
        var slot = FeatureHash.slot(hashes[index], bits: bits)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index + 1)
    }
}
