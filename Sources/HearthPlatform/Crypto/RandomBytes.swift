import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random bytes from the kernel's CSPRNG (`getrandom`, through `arc4random_buf`), fetched a block at a time and handed out once each:
/// every id, token, salt and nonce Hearth makes comes from here.
///
/// Why not the defaults: Foundation's `UUID()` opens, reads and closes `/dev/urandom` for every id (three system
/// calls), `SystemRandomNumberGenerator` makes one `getrandom` call per eight bytes (twelve for a request id), and
/// swift-crypto's `AES.GCM.Nonce()` does the same; a chat turn made about twenty-five such calls
/// (docs/performance-notes.md). A block serves 256 ids for one call. Bytes are never handed out twice, and the
/// process never forks a copy of the block (child processes are spawned, not forked).
public enum RandomBytes {
    private static let blockSize = 4096
    private static let pool = NIOLockedValueBox(Pool())

    private struct Pool {
        var block = [UInt8](repeating: 0, count: RandomBytes.blockSize)
        var used = RandomBytes.blockSize

        mutating func take(into target: UnsafeMutableRawBufferPointer) {
            var written = 0
            while written < target.count {
                if used == block.count { refill() }
                let count = min(target.count - written, block.count - used)
                block.withUnsafeBytes { source in
                    target.baseAddress!.advanced(by: written).copyMemory(from: source.baseAddress!.advanced(by: used), byteCount: count)
                }
                // Handed-out bytes are wiped, so the block never holds a secret someone already has.
                block.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: used).initializeMemory(as: UInt8.self, repeating: 0, count: count) }
                used += count
                written += count
            }
        }

        private mutating func refill() {
            // glibc's arc4random_buf is the kernel's getrandom, retried until full; it never returns short.
            block.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
            used = 0
        }
    }

    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard !buffer.isEmpty else { return }
        pool.withLockedValue { $0.take(into: buffer) }
    }

    public static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// A random (version 4) UUID, as Foundation's `UUID()` makes but without its three system calls.
    public static func uuid() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { fill($0) }
        bytes.6 = (bytes.6 & 0x0F) | 0x40 // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80 // RFC 4122 variant
        return UUID(uuid: bytes)
    }

    /// A time-ordered (version 7, RFC 9562) UUID: the Unix time in milliseconds, then 74 random bits. For the keys of
    /// tables written on every turn (`messages`; `usage_records` get theirs from its SQL twin, `hearth_uuid_v7`,
    /// migration 0040): each insert lands at the right edge of the primary key's index instead of on a random page,
    /// so the index keeps its recent pages in memory and after a checkpoint writes one page whole, not one per insert
    /// (docs/performance-notes.md). The time is no secret: rows show it as `created_at`.
    public static func timeOrderedUUID(at date: Date = Date()) -> UUID {
        // A random one with its first six bytes and its version replaced (the variant stays).
        var bytes = uuid().uuid
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        bytes.0 = UInt8(truncatingIfNeeded: milliseconds >> 40)
        bytes.1 = UInt8(truncatingIfNeeded: milliseconds >> 32)
        bytes.2 = UInt8(truncatingIfNeeded: milliseconds >> 24)
        bytes.3 = UInt8(truncatingIfNeeded: milliseconds >> 16)
        bytes.4 = UInt8(truncatingIfNeeded: milliseconds >> 8)
        bytes.5 = UInt8(truncatingIfNeeded: milliseconds)
        bytes.6 = (bytes.6 & 0x0F) | 0x70 // version 7
        return UUID(uuid: bytes)
    }
}
