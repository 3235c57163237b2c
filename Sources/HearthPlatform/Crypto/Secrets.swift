import Crypto
import Foundation

/// Random tokens, digests and comparisons that do not leak timing.
public enum Secrets {
    public static func randomBytes(_ count: Int) -> [UInt8] {
        RandomBytes.bytes(count)
    }

    public static func randomHex(byteCount: Int) -> String {
        hex(randomBytes(byteCount))
    }

    /// Lowercase hex. Every request gets some (its request id): `String(format:)` per byte showed in profiles.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    /// URL-safe, unpadded base64 of `byteCount` random bytes.
    public static func randomToken(byteCount: Int = 32) -> String {
        base64URL(randomBytes(byteCount))
    }

    public static func sha256(_ string: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(string.utf8)))
    }

    /// URL-safe, unpadded base64 (RFC 4648 §5), as JSON Web Tokens and our random tokens use it.
    public static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index < input.count {
            let count = min(3, input.count - index)
            var group = UInt32(input[index]) << 16
            if count > 1 { group |= UInt32(input[index + 1]) << 8 }
            if count > 2 { group |= UInt32(input[index + 2]) }
            // n bytes make n + 1 characters, six bits each from the top of the 24-bit group.
            for character in 0...count {
                output.append(base64URLAlphabet[Int((group >> UInt32(18 - 6 * character)) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of unpadded base64url text; `nil` for anything else, padding included, or for a text whose
    /// last character has bits set beyond the data's end (so each byte string has exactly one encoding).
    public static func decodeBase64URL(_ string: String) -> Data? {
        decodeBase64URL(bytes: string.utf8).map { Data($0) }
    }

    /// Inlinable, as is ``constantTimeEquals(_:_:)``: every request's access token goes through both, and a generic
    /// call across modules iterates its collection through witness tables, a few times slower.
    @inlinable
    public static func decodeBase64URL(bytes text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for character in text {
            let value = base64URLValues[Int(character)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        return group == 0 ? output : nil
    }

    @usableFromInline static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet, 0xFF for bytes outside it.
    @usableFromInline static let base64URLValues: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in base64URLAlphabet.enumerated() { values[Int(character)] = UInt8(value) }
        return values
    }()

    /// Compares without an early exit, so the time taken says nothing about where two secrets differ.
    @inlinable
    public static func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
