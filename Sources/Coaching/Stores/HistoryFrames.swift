import Foundation
import LLM

/// A turn's recent messages as `hearth_turn_reading` returns them in one `history` row (migration 0032): their
/// roles comma-separated, and each message, oldest first, as its id (16 bytes), its ciphertext's length (4 bytes,
/// big-endian) and its ciphertext. One row instead of one a message: each row costs its own decoding.
enum HistoryFrames {
    typealias Message = (id: UUID, role: ChatMessage.Role, sealed: Data)

    /// The frames did not add up: the statement and this reader disagree, which is a bug, not a user's error.
    struct Malformed: Error, CustomStringConvertible {
        var description: String { "the history row's frames do not match its count and roles" }
    }

    /// The messages of a `history` row: `count` of them, `roles` and `frames` as above (both `nil` with none).
    static func messages(count: Int, roles: String?, frames: Data?) throws -> [Message] {
        guard count > 0 else { return [] }
        guard let roles, let frames else { throw Malformed() }
        let roleNames = roles.split(separator: ",")
        guard roleNames.count == count else { throw Malformed() }
        var messages: [Message] = []
        messages.reserveCapacity(count)
        try frames.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            for role in roleNames {
                guard bytes.count - offset >= 20 else { throw Malformed() }
                let id = UUID(uuid: bytes.loadUnaligned(fromByteOffset: offset, as: uuid_t.self))
                let length = Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self)))
                offset += 20
                guard bytes.count - offset >= length else { throw Malformed() }
                messages.append((id, role == "user" ? .user : .assistant,
                                 Data(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))))
                offset += length
            }
            guard offset == bytes.count else { throw Malformed() }
        }
        return messages
    }
}
