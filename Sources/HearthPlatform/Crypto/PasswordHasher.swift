import CArgon2
import Foundation
import NIOPosix

/// argon2id through the system libargon2, with OWASP's recommended minimum cost (19 MiB, t=2, p=1).
///
/// Hashing costs tens of milliseconds of CPU, so it runs on NIO's blocking thread pool, never on an event
/// loop; the pool's size (one thread per core) also caps how many hashes run at once.
public struct PasswordHasher: Sendable {
    public struct Cost: Sendable, Equatable {
        public var memoryKiB: UInt32
        public var iterations: UInt32
        public var parallelism: UInt32

        public static let owaspMinimum = Cost(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }
    }

    public let cost: Cost
    let threadPool: NIOThreadPool

    public init(cost: Cost = .owaspMinimum, threadPool: NIOThreadPool = .singleton) {
        self.cost = cost
        self.threadPool = threadPool
    }

    /// The PHC-encoded hash (`$argon2id$v=19$m=…`), salt included.
    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await threadPool.runIfActive {
            try Self.hashNow(password, cost: cost)
        }
    }

    /// libargon2 recomputes and compares in constant time.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        try await threadPool.runIfActive {
            let result = password.utf8CString.withUnsafeBufferPointer { passwordBuffer in
                argon2id_verify(encoded, passwordBuffer.baseAddress, passwordBuffer.count - 1)
            }
            return result == ARGON2_OK.rawValue
        }
    }

    static func hashNow(_ password: String, cost: Cost) throws -> String {
        let salt = Secrets.randomBytes(16)
        let hashLength = 32
        let encodedLength = argon2_encodedlen(cost.iterations, cost.memoryKiB, cost.parallelism, UInt32(salt.count), UInt32(hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: encodedLength)
        let result = password.utf8CString.withUnsafeBufferPointer { passwordBuffer in
            argon2id_hash_encoded(
                cost.iterations, cost.memoryKiB, cost.parallelism,
                passwordBuffer.baseAddress, passwordBuffer.count - 1,
                salt, salt.count, hashLength, &encoded, encodedLength
            )
        }
        guard result == ARGON2_OK.rawValue else {
            throw PasswordHashingError(code: result)
        }
        return String(decoding: encoded.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

public struct PasswordHashingError: Error, CustomStringConvertible {
    let code: Int32
    public var description: String { "argon2 failed: " + String(cString: argon2_error_message(code)) }
}
