import Crypto
import Foundation
import HearthPlatform

/// Memory's personal columns: JSON sealed with the user's data key, bound to the table, column and row.
enum Sealing {
    static func seal(_ value: some Encodable, key: SymmetricKey, column: String, id: UUID) throws -> Data {
        let json = String(decoding: try encoder.encode(value), as: UTF8.self)
        return Data(try FieldCipher.seal(json, key: key, context: "\(column):\(id.uuidString.lowercased())"))
    }

    static func open<T: Decodable>(_ type: T.Type, _ sealed: Data, key: SymmetricKey, column: String, id: UUID) throws -> T {
        let json = try FieldCipher.open(Array(sealed), key: key, context: "\(column):\(id.uuidString.lowercased())")
        return try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    static let summary = "memory_summaries.summary"
    static let fact = "memory_facts.fact"
    static let insight = "memory_insights.text"

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}
