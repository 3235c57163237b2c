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

    public static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decodeBase64URL(_ string: String) -> Data? {
        var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// Compares without an early exit, so the time taken says nothing about where two secrets differ.
    public static func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
