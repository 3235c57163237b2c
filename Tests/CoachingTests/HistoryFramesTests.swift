@testable import Coaching
import Foundation
import Testing

/// The recent messages' one row (migration 0032). That the statement and this reader agree is shown end to end
/// by `TurnTests.theProviderIsSentTheConversationSoFarOldestFirst`; here, the layout and what it refuses.
@Suite struct HistoryFramesTests {
    static func frame(_ id: UUID, _ sealed: [UInt8]) -> [UInt8] {
        let length = UInt32(sealed.count)
        return withUnsafeBytes(of: id.uuid) { Array($0) } + withUnsafeBytes(of: length.bigEndian) { Array($0) } + sealed
    }

    @Test func framesAreReadOldestFirstWithTheirRoles() throws {
        let (first, second, third) = (UUID(), UUID(), UUID())
        // The middle one is longer than 255 bytes, so its length needs more than the last byte.
        let frames = Self.frame(first, [1, 2, 3]) + Self.frame(second, Array(repeating: 7, count: 300)) + Self.frame(third, [])
        let messages = try HistoryFrames.messages(count: 3, roles: "user,assistant,user", frames: Data(frames))
        #expect(messages.map(\.id) == [first, second, third])
        #expect(messages.map(\.role) == [.user, .assistant, .user])
        #expect(messages.map { Array($0.sealed) } == [[1, 2, 3], Array(repeating: 7, count: 300), []])
    }

    @Test func noMessagesIsAnEmptyHistory() throws {
        #expect(try HistoryFrames.messages(count: 0, roles: nil, frames: nil).isEmpty)
    }

    @Test func framesThatDoNotAddUpAreRefused() {
        let frames = Self.frame(UUID(), [1, 2, 3]) + Self.frame(UUID(), [4])
        for (count, roles, bytes) in [
            (2, "user,assistant", Array(frames.dropLast())),            // the last ciphertext cut short
            (2, "user,assistant", frames + [0]),                        // a byte after the last frame
            (1, "user", frames),                                        // fewer messages than frames
            (3, "user,assistant,user", frames),                         // more messages than frames
            (2, "user", frames),                                        // roles and count disagree
            (2, "user,assistant", Array(frames.prefix(10))),            // a frame's header cut short
        ] as [(Int, String, [UInt8])] {
            #expect(throws: HistoryFrames.Malformed.self, "\(count) \(roles) \(bytes.count) bytes") {
                try HistoryFrames.messages(count: count, roles: roles, frames: Data(bytes))
            }
        }
        #expect(throws: HistoryFrames.Malformed.self) { try HistoryFrames.messages(count: 1, roles: nil, frames: nil) }
    }
}
