import Crypto
import Foundation

/// AES-256-GCM for one personal field.
///
/// Stored layout: one format byte (`0x01`), then nonce ‖ ciphertext ‖ tag. The `context` (table, column and
/// row id) is authenticated so ciphertext moved to another row or column fails to open.
public enum FieldCipher {
    static let format: UInt8 = 0x01

    public static func seal(_ plaintext: String, key: SymmetricKey, context: String) throws -> [UInt8] {
        // A nonce from ``RandomBytes``: `AES.GCM.Nonce()` makes two system calls for its twelve bytes.
        let nonce = try AES.GCM.Nonce(data: RandomBytes.bytes(12))
        // Arrays, not `Data(text.utf8)`: Data's init from a sequence looks up its type at run time first.
        let box = try AES.GCM.seal(Array(plaintext.utf8), using: key, nonce: nonce, authenticating: Array(context.utf8))
        return [format] + Array(box.combined!)
    }

    public static func open(_ stored: [UInt8], key: SymmetricKey, context: String) throws -> String {
        guard stored.first == format else { throw CryptoFailure.cannotDecrypt }
        do {
            let box = try AES.GCM.SealedBox(combined: stored.dropFirst())
            let data = try AES.GCM.open(box, using: key, authenticating: Array(context.utf8))
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw CryptoFailure.cannotDecrypt
        }
    }

    /// A keyed hash for exact-match lookups of an encrypted value (a "blind index"): equal inputs give equal
    /// outputs under one key, but the index reveals nothing without the key.
    public static func blindIndex(_ value: String, key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data(value.utf8), using: key))
    }
}
