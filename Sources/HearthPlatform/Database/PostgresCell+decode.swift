import PostgresNIO

extension PostgresCell {
    /// The cell's value, `nil` for SQL NULL: decoded as `T` itself rather than as `Optional<T>`, whose generic
    /// decoding looks up type metadata at run time on every cell. For the rows every turn reads.
    @inlinable
    public func decodeIfPresent<T: PostgresDecodable>(_: T.Type) throws -> T? {
        bytes == nil ? nil : try decode(T.self)
    }
}

extension PostgresRow {
    /// A row whose columns are not the ones its reader takes.
    public struct UnexpectedColumns: Error, CustomStringConvertible {
        public let expected: Int

        public init(expected: Int) {
            self.expected = expected
        }

        public var description: String { "a row without the \(expected) columns its reader takes" }
    }
}
