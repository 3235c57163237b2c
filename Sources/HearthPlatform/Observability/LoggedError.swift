import Logging
import PostgresNIO

extension Logger.MetadataValue {
    /// What a log line may say of `error`. A database error's full description carries the server's detail
    /// ("Key (email)=(…)"), the statement and its parameters: personal text. Of those only the SQLSTATE, PostgresNIO's
    /// code and the statement's opening words (SQL we wrote, never a parameter) are logged; a decoding error gives
    /// its column and types, never the cell. The request id is already in the logger's metadata.
    public static func error(_ error: any Error) -> Logger.MetadataValue {
        switch error {
        case let error as PSQLError:
            var parts = ["code: \(error.code)"]
            if let state = error.sqlState { parts.append("sqlstate: \(state)") }
            if let sql = error.query?.sql { parts.append("statement: \(statementName(sql))") }
            return .string("PSQLError(\(parts.joined(separator: ", ")))")
        case let error as PostgresDecodingError:
            return .string("PostgresDecodingError(code: \(error.code), column: \(error.columnName), type: \(error.postgresType), as: \(error.targetType))")
        default:
            return .string(String(reflecting: error))
        }
    }

    /// The first few words of a statement, its white space folded: enough to find it in the code
    /// ("SELECT hearth_turn_begin($1, $2, …").
    static func statementName(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        let name = words.prefix(8).joined(separator: " ")
        return name.count > 80 ? String(name.prefix(80)) + "…" : name
    }
}
