import Crypto
import Foundation
import HearthPlatform
import HearthTestSupport
import Testing

@Suite struct KeyRingTests {
    let v1 = KeyRing.generateSpecification(version: 1)
    let v2 = KeyRing.generateSpecification(version: 2)

    @Test func parsesVersionsAndPicksTheNewestAsCurrent() throws {
        let ring = try KeyRing(parsing: "\(v1), \(v2)")
        #expect(ring.current.version == 2)
        #expect(ring.versions == [1, 2])
        #expect(ring.specification == "\(v2),\(v1)")
        let wrapped = try ring.wrap(ring.generateDataKey(), context: "user:x")
        #expect(throws: Never.self) { try KeyRing(parsing: ring.specification).unwrap(wrapped, context: "user:x") }
    }

    @Test(arguments: ["", "1", "x:abc", "1:notbase64!", "1:" + Data(count: 16).base64EncodedString(), "0:" + Data(count: 32).base64EncodedString()])
    func rejectsMalformedSpecifications(_ specification: String) {
        #expect(throws: ConfigError.self) { try KeyRing(parsing: specification) }
    }

    @Test func rejectsDuplicateVersions() {
        #expect(throws: ConfigError.self) { try KeyRing(parsing: "\(v1),\(v1)") }
    }

    @Test func wrapsAndUnwrapsBoundToContext() throws {
        let ring = try KeyRing(parsing: v1)
        let dataKey = ring.generateDataKey()
        let wrapped = try ring.wrap(dataKey, context: "user:a")
        #expect(try ring.unwrap(wrapped, context: "user:a") == dataKey)
        // A wrapped key copied onto another user's row does not open.
        #expect(throws: CryptoFailure.cannotDecrypt) { try ring.unwrap(wrapped, context: "user:b") }
    }

    @Test func rotationRewrapsUnderTheNewVersionAndOldKeysStayReadable() throws {
        let old = try KeyRing(parsing: v1)
        let dataKey = old.generateDataKey()
        let wrapped = try old.wrap(dataKey, context: "user:a")
        let rotated = try KeyRing(parsing: "\(v1),\(v2)")
        #expect(try rotated.unwrap(wrapped, context: "user:a") == dataKey)
        let rewrapped = try rotated.rewrap(wrapped, context: "user:a")
        #expect(rewrapped.masterVersion == 2)
        // Once rewrapped, version 1 can be retired.
        let onlyNew = try KeyRing(parsing: v2)
        #expect(try onlyNew.unwrap(rewrapped, context: "user:a") == dataKey)
        #expect(throws: CryptoFailure.unknownMasterVersion(1)) { try onlyNew.unwrap(wrapped, context: "user:a") }
    }

    @Test func tokenSigningKeysDifferPerVersion() throws {
        let ring = try KeyRing(parsing: "\(v1),\(v2)")
        #expect(ring.tokenSigningKey(version: 1) != ring.tokenSigningKey(version: 2))
        #expect(ring.tokenSigningKey(version: 3) == nil)
    }
}

@Suite struct FieldCipherTests {
    @Test func sealsAndOpensWithAuthenticatedContext() throws {
        let key = SymmetricKey(size: .bits256)
        let sealed = try FieldCipher.seal("I feel anxious about work", key: key, context: "messages.body:1")
        #expect(!String(decoding: sealed, as: UTF8.self).contains("anxious"))
        #expect(try FieldCipher.open(sealed, key: key, context: "messages.body:1") == "I feel anxious about work")
        #expect(throws: CryptoFailure.cannotDecrypt) { try FieldCipher.open(sealed, key: key, context: "messages.body:2") }
    }

    @Test func sealingTwiceGivesDifferentCiphertext() throws {
        let key = SymmetricKey(size: .bits256)
        #expect(try FieldCipher.seal("same", key: key, context: "c") != FieldCipher.seal("same", key: key, context: "c"))
    }

    @Test func anotherKeyCannotOpen() throws {
        let sealed = try FieldCipher.seal("secret", key: SymmetricKey(size: .bits256), context: "c")
        #expect(throws: CryptoFailure.cannotDecrypt) { try FieldCipher.open(sealed, key: SymmetricKey(size: .bits256), context: "c") }
    }

    @Test func blindIndexIsKeyedAndDeterministic() {
        let key = SymmetricKey(size: .bits256)
        #expect(FieldCipher.blindIndex("a@b.co", key: key) == FieldCipher.blindIndex("a@b.co", key: key))
        #expect(FieldCipher.blindIndex("a@b.co", key: key) != FieldCipher.blindIndex("a@b.co", key: SymmetricKey(size: .bits256)))
    }

    @Test func constantTimeEqualsComparesWholeValues() {
        #expect(Secrets.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Secrets.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Secrets.constantTimeEquals([1, 2, 3], [1, 2]))
    }

    /// Against Foundation's base64 with the URL alphabet swapped in and the padding dropped, at every length mod 3.
    @Test func base64URLIsFoundationsBase64WithTheURLAlphabet() {
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Secrets.base64URL(bytes) == foundation)
            #expect(Secrets.decodeBase64URL(foundation) == Data(bytes))
        }
        #expect(Secrets.base64URL([0xFB, 0xFF]) == "-_8")
    }

    @Test(arguments: ["A", "AAAAA", "AB==", "AB", "A+B/", "AA.A", "AAA\u{0}"])
    func base64URLDecodingRefusesAnythingElse(_ text: String) {
        // "AB" sets bits past its one byte: only "AA" encodes [0].
        #expect(Secrets.decodeBase64URL(text) == nil)
    }
}

@Suite struct RandomBytesTests {
    @Test func uuidsAreVersionFourAndDistinct() {
        let ids = (0..<10_000).map { _ in RandomBytes.uuid() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(500) {
            #expect(id.uuid.6 >> 4 == 4)
            #expect(id.uuid.8 >> 6 == 0b10)
        }
    }

    /// Version 7: the first 48 bits are the time in milliseconds, so ids sort by when they were made (as Postgres
    /// compares `uuid`s, byte by byte), and the rest is random: ids of the same millisecond still differ.
    @Test func timeOrderedUUIDsCarryTheirMillisecondAndSortByIt() {
        let date = Date(timeIntervalSince1970: 1_796_000_000.123)
        let ids = (0..<5_000).map { _ in RandomBytes.timeOrderedUUID(at: date) }
        #expect(Set(ids).count == ids.count)
        let id = ids[0]
        #expect(id.uuid.6 >> 4 == 7 && id.uuid.8 >> 6 == 0b10)
        let milliseconds = [id.uuid.0, id.uuid.1, id.uuid.2, id.uuid.3, id.uuid.4, id.uuid.5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_796_000_000_123)
        let bytes = { (id: UUID) in withUnsafeBytes(of: id.uuid) { Array($0) } }
        let later = RandomBytes.timeOrderedUUID(at: date.addingTimeInterval(0.001))
        #expect(ids.allSatisfy { bytes($0).lexicographicallyPrecedes(bytes(later)) })
    }

    /// Requests larger than the pool's block, and ones that straddle a refill, are served whole and never repeat.
    @Test func bytesAcrossBlocksAreFreshAndCoverEveryValue() {
        let chunks = (0..<40).map { _ in RandomBytes.bytes(3_001) }
        #expect(chunks.allSatisfy { $0.count == 3_001 })
        #expect(Set(chunks).count == chunks.count)
        #expect(RandomBytes.bytes(10_000).count == 10_000)
        // 120,040 bytes: each value is expected about 470 times; missing one would mean the bytes are not uniform.
        #expect(Set(chunks.joined()).count == 256)
        #expect(RandomBytes.bytes(0).isEmpty)
    }

    @Test func concurrentCallersNeverShareBytes() async {
        let ids = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<8 { group.addTask { (0..<2_000).map { _ in RandomBytes.uuid() } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 16_000)
        #expect(Set(ids).count == 16_000)
    }
}

@Suite struct PasswordHasherTests {
    @Test func defaultCostIsOWASPsArgon2idMinimum() async throws {
        let encoded = try await PasswordHasher().hash("correct horse battery")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    }

    @Test func verifiesTheRightPasswordOnly() async throws {
        let hasher = PasswordHasher(cost: .init(memoryKiB: 1024, iterations: 1, parallelism: 1))
        let encoded = try await hasher.hash("correct horse battery")
        #expect(try await hasher.verify("correct horse battery", against: encoded))
        #expect(try await !hasher.verify("correct horse batterY", against: encoded))
        #expect(try await !hasher.verify("correct horse battery", against: "not a hash"))
        // Salted: the same password hashes differently.
        #expect(try await hasher.hash("correct horse battery") != encoded)
    }
}

@Suite struct DatabaseURLTests {
    @Test func parsesAllParts() throws {
        let url = try DatabaseURL("postgres://app:p%40ss@db.internal:6543/hearth?sslmode=require")
        #expect(url == DatabaseURL(host: "db.internal", port: 6543, username: "app", password: "p@ss", database: "hearth", requireTLS: true))
        #expect(!url.description.contains("p@ss"))
    }

    @Test func aHostParameterIsTheSocketDirectoryAsLibpqReadsIt() throws {
        let url = try DatabaseURL("postgres://app:secret@127.0.0.1:54339/hearth?host=/var/run/postgresql")
        #expect(url.socketPath == "/var/run/postgresql/.s.PGSQL.54339")
        #expect(try DatabaseURL(url.string) == url)
        #expect(!url.description.contains("secret"))
        #expect(try DatabaseURL("postgres://app@db/hearth").socketPath == nil)
    }

    @Test(arguments: ["mysql://a@b/c", "postgres://b/c", "postgres://a@b", "postgres://a@b/c?sslmode=maybe", "not a url",
                      "postgres://a@b/c?host=relative/dir", "postgres://a@b/c?host=/run&sslmode=require",
                      "postgres://a@b/c?host=/\(String(repeating: "d", count: 100))"])
    func rejectsBadURLs(_ string: String) {
        #expect(throws: ConfigError.self) { try DatabaseURL(string) }
    }

    @Test func theEmbeddedServerIsReachedThroughItsSocketFile() async throws {
        let endpoints = try await TestPostgres.shared.serverEndpoints()
        #expect(endpoints.app.socketPath != nil)
        // Postgres knows no server address for a connection through a Unix socket.
        let overTCP = try await Database.connect(to: endpoints.admin, logger: TestLogs.quiet) { database in
            try await database.client.query("SELECT inet_server_addr() IS NOT NULL", logger: TestLogs.quiet).collect().first?.decode(Bool.self)
        }
        #expect(overTCP == false)
    }
}
