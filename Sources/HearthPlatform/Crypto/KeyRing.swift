import Crypto
import Foundation

/// Envelope encryption. Versioned master keys (from `HEARTH_MASTER_KEY`) wrap per-user and per-tenant data
/// keys; data keys encrypt personal fields. Rotating the master key re-wraps the small data keys and never
/// touches the ciphertext they protect. Deleting a data key makes everything it sealed unreadable
/// (crypto-shredding), backups included.
public struct KeyRing: Sendable {
    public struct MasterKey: Sendable {
        public let version: Int
        let key: SymmetricKey
    }

    /// A data key sealed under master key `masterVersion`.
    public struct WrappedKey: Sendable, Equatable {
        public let masterVersion: Int
        public let sealed: [UInt8]

        public init(masterVersion: Int, sealed: [UInt8]) {
            self.masterVersion = masterVersion
            self.sealed = sealed
        }
    }

    let keys: [Int: MasterKey]
    /// The newest version: new data keys are wrapped with it.
    public let current: MasterKey

    public var versions: [Int] { keys.keys.sorted() }

    /// Parses `"2:BASE64,1:BASE64"`: comma-separated `version:base64` pairs of 32-byte keys.
    /// The highest version is current; older ones stay so existing data keys can still be unwrapped.
    public init(parsing specification: String) throws {
        var keys: [Int: MasterKey] = [:]
        for entry in specification.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]), version > 0 else {
                throw ConfigError("HEARTH_MASTER_KEY entries must look like 1:BASE64 (version, colon, base64 of 32 bytes)")
            }
            guard let bytes = Data(base64Encoded: String(parts[1])), bytes.count == 32 else {
                throw ConfigError("HEARTH_MASTER_KEY version \(version) is not base64 of exactly 32 bytes")
            }
            guard keys[version] == nil else { throw ConfigError("HEARTH_MASTER_KEY lists version \(version) twice") }
            keys[version] = MasterKey(version: version, key: SymmetricKey(data: bytes))
        }
        guard let newest = keys.keys.max() else { throw ConfigError("HEARTH_MASTER_KEY is empty") }
        self.keys = keys
        self.current = keys[newest]!
    }

    /// The ring back in `HEARTH_MASTER_KEY` form, newest first (secret: for dev's own `dev.env` only).
    public var specification: String {
        keys.keys.sorted(by: >).map { version in
            "\(version):" + keys[version]!.key.withUnsafeBytes { Data($0) }.base64EncodedString()
        }.joined(separator: ",")
    }

    /// A fresh master key specification `"version:base64"` (for `hearth keys generate` and dev setup).
    public static func generateSpecification(version: Int) -> String {
        "\(version):" + Data(Secrets.randomBytes(32)).base64EncodedString()
    }

    public func generateDataKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// Seals `dataKey` under the current master key. `context` (e.g. `user:<id>`) is authenticated, so a
    /// wrapped key copied onto another row will not unwrap.
    public func wrap(_ dataKey: SymmetricKey, context: String) throws -> WrappedKey {
        let sealed = try AES.GCM.seal(
            dataKey.withUnsafeBytes { Data($0) }, using: current.key, authenticating: Data(context.utf8)
        )
        return WrappedKey(masterVersion: current.version, sealed: Array(sealed.combined!))
    }

    public func unwrap(_ wrapped: WrappedKey, context: String) throws -> SymmetricKey {
        guard let master = keys[wrapped.masterVersion] else {
            throw CryptoFailure.unknownMasterVersion(wrapped.masterVersion)
        }
        do {
            let box = try AES.GCM.SealedBox(combined: wrapped.sealed)
            return SymmetricKey(data: try AES.GCM.open(box, using: master.key, authenticating: Data(context.utf8)))
        } catch {
            throw CryptoFailure.cannotDecrypt
        }
    }

    /// Re-seals under the current master key (used by `hearth keys rotate`).
    public func rewrap(_ wrapped: WrappedKey, context: String) throws -> WrappedKey {
        try wrap(try unwrap(wrapped, context: context), context: context)
    }

    /// A key for `purpose` (the console's CSRF tokens), derived from the current master key: it changes when the
    /// master key rotates, which signs nothing in for long.
    public func derivedKey(_ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: current.key, info: Data("hearth \(purpose)".utf8), outputByteCount: 32)
    }

    /// A key for signing access tokens, derived from master key `version` so it rotates with it.
    public func tokenSigningKey(version: Int) -> SymmetricKey? {
        keys[version].map {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: $0.key, info: Data("hearth access-token signing".utf8), outputByteCount: 32
            )
        }
    }
}

public enum CryptoFailure: Error, Equatable, CustomStringConvertible {
    case unknownMasterVersion(Int)
    case cannotDecrypt

    public var description: String {
        switch self {
        case .unknownMasterVersion(let version): "no master key version \(version) in HEARTH_MASTER_KEY"
        case .cannotDecrypt: "ciphertext does not open with this key"
        }
    }
}
