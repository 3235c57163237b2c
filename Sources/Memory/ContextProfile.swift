import Crypto
import Foundation
import HearthPlatform

/// What a user tells the coach about themselves (FR10, FR14; the memory document's static and dynamic
/// context): every field optional, stored sealed with the user's data key.
public struct ContextProfile: Sendable, Equatable {
    /// The fields, as the API names them. Adding one is a case here and a line in docs/api.md.
    public enum Field: String, Sendable, CaseIterable, Codable {
        // Who they are
        case name, preferredName, pronouns, age
        // What matters to them
        case values, goals, lifeSituation
        // How they like to be coached
        case communicationStyle, sessionLength, topicsToAvoid, copingStrategies, preferredSessionTimes
        // Boundaries
        case crisisContact, therapistName
        // What is going on now
        case currentStressors, recentWins

        /// The shape a field's value has, with its limits.
        enum Kind {
            case text(maxLength: Int)
            case choice(Set<String>)
            case number(ClosedRange<Int>)
            case list(maxItems: Int, itemChoices: Set<String>?)
        }

        var kind: Kind {
            switch self {
            case .name, .preferredName, .pronouns, .therapistName: .text(maxLength: 100)
            case .lifeSituation: .text(maxLength: 1000)
            case .crisisContact: .text(maxLength: 300)
            case .age: .number(13...120)
            case .communicationStyle: .choice(["direct", "gentle", "socratic", "validating"])
            case .sessionLength: .choice(["brief", "standard", "extended"])
            case .preferredSessionTimes: .list(maxItems: 4, itemChoices: ["morning", "afternoon", "evening", "night"])
            case .values, .goals, .topicsToAvoid, .copingStrategies, .currentStressors, .recentWins: .list(maxItems: 20, itemChoices: nil)
            }
        }
    }

    public enum Value: Sendable, Equatable, Codable {
        case text(String)
        case number(Int)
        case list([String])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .list(try container.decode([String].self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            case .list(let items): try container.encode(items)
            }
        }
    }

    public private(set) var values: [Field: Value] = [:]

    public init(values: [Field: Value] = [:]) {
        self.values = values
    }

    public var isEmpty: Bool { values.isEmpty }

    public subscript(field: Field) -> Value? { values[field] }

    /// Applies a JSON merge patch (RFC 7396): a field set to null is removed, an absent one is unchanged. Every
    /// value is checked first, so a bad patch changes nothing; the error names the field.
    public mutating func apply(_ patch: [String: PatchValue]) throws {
        var updated = values
        for (name, change) in patch {
            guard let field = Field(rawValue: name) else {
                throw APIError.validation("\(name) is not a context field (fields: \(Field.allCases.map(\.rawValue).joined(separator: ", "))).")
            }
            if let value = try Self.validated(change, for: field) { updated[field] = value } else { updated[field] = nil }
        }
        values = updated
    }

    public mutating func remove(_ field: Field) {
        values[field] = nil
    }

    /// The checked value, or nil to remove the field (null, an empty string or an empty list).
    static func validated(_ change: PatchValue, for field: Field) throws -> Value? {
        func invalid(_ expected: String) -> APIError { APIError.validation("\(field.rawValue) must be \(expected).") }
        guard case .set(let value) = change else { return nil }
        switch (field.kind, value) {
        case (.text(let maxLength), .text(let raw)):
            let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count <= maxLength else { throw invalid("at most \(maxLength) characters") }
            return text.isEmpty ? nil : .text(text)
        case (.choice(let choices), .text(let raw)):
            guard choices.contains(raw) else { throw invalid("one of \(choices.sorted().joined(separator: ", "))") }
            return .text(raw)
        case (.number(let range), .number(let number)):
            guard range.contains(number) else { throw invalid("between \(range.lowerBound) and \(range.upperBound)") }
            return .number(number)
        case (.list(let maxItems, let choices), .list(let raw)):
            var items: [String] = []
            for item in raw.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !item.isEmpty && !items.contains(item) {
                guard item.count <= 200 else { throw invalid("a list of texts of at most 200 characters") }
                if let choices, !choices.contains(item) { throw invalid("a list of \(choices.sorted().joined(separator: ", "))") }
                items.append(item)
            }
            guard items.count <= maxItems else { throw invalid("a list of at most \(maxItems) items") }
            return items.isEmpty ? nil : .list(items)
        case (.text, _), (.choice, _): throw invalid("a string")
        case (.number, _): throw invalid("a whole number")
        case (.list, _): throw invalid("a list of strings")
        }
    }
}

/// One field of a PATCH body: a value to set, or null to remove the field.
public enum PatchValue: Sendable, Decodable, Equatable {
    case set(ContextProfile.Value)
    case remove

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .remove
        } else if let value = try? container.decode(ContextProfile.Value.self) {
            self = .set(value)
        } else {
            throw APIError.validation("Context fields are strings, whole numbers, lists of strings, or null.")
        }
    }
}

extension ContextProfile {
    static func sealingContext(_ userID: UUID) -> String { "context_profiles.profile:\(userID.uuidString.lowercased())" }

    /// Opens a profile stored by ``ContextProfileStore`` (or read by the chat turn in its one round trip).
    public init(sealed: [UInt8], key: SymmetricKey, userID: UUID) throws {
        let json = try FieldCipher.open(sealed, key: key, context: Self.sealingContext(userID))
        self = try JSONDecoder().decode(ContextProfile.self, from: Data(json.utf8))
    }

    func sealed(key: SymmetricKey, userID: UUID) throws -> [UInt8] {
        try FieldCipher.seal(String(decoding: JSONEncoder().encode(self), as: UTF8.self), key: key, context: Self.sealingContext(userID))
    }
}

extension ContextProfile: Codable {
    /// Stored (sealed) and sent as one JSON object of the fields that are set.
    public init(from decoder: any Decoder) throws {
        let stored = try [String: Value](from: decoder)
        values = Dictionary(uniqueKeysWithValues: stored.compactMap { name, value in Field(rawValue: name).map { ($0, value) } })
    }

    public func encode(to encoder: any Encoder) throws {
        try Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value) }).encode(to: encoder)
    }
}
