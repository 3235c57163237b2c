/// Splits a SQL file into statements, because PostgresNIO speaks only the extended query protocol, which
/// takes one statement per message.
///
/// Semicolons inside quoted strings (`'…'`, `E'…'` with backslash escapes), quoted identifiers (`"…"`),
/// dollar-quoted bodies (`$$…$$`, `$fn$…$fn$`) and comments (`--`, nested `/* */`) do not split.
public enum SQLScript {
    public struct Statement: Equatable, Sendable {
        public let sql: String
        /// 1-based line of the file on which the statement starts.
        public let line: Int

        public init(sql: String, line: Int) {
            self.sql = sql
            self.line = line
        }
    }

    public static func split(_ script: String) -> [Statement] {
        let chars = Array(script.unicodeScalars)
        var statements: [Statement] = []
        var current = String.UnicodeScalarView()
        var line = 1
        var startLine: Int?
        var index = 0

        func peek(_ offset: Int) -> Unicode.Scalar? {
            index + offset < chars.count ? chars[index + offset] : nil
        }
        func take(_ count: Int = 1) {
            for _ in 0..<count where index < chars.count {
                let scalar = chars[index]
                if scalar == "\n" { line += 1 }
                current.append(scalar)
                index += 1
            }
        }
        /// Consumes a quoted run; a doubled quote is an escaped quote.
        func takeQuoted(_ quote: Unicode.Scalar, backslashEscapes: Bool) {
            take()
            while index < chars.count {
                if backslashEscapes, chars[index] == "\\" { take(2); continue }
                if chars[index] == quote {
                    if peek(1) == quote { take(2); continue }
                    take()
                    return
                }
                take()
            }
        }
        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty, let startLine { statements.append(Statement(sql: text, line: startLine)) }
            current = String.UnicodeScalarView()
            startLine = nil
        }

        while index < chars.count {
            let scalar = chars[index]
            if startLine == nil, !scalar.properties.isWhitespace { startLine = line }
            switch scalar {
            case "-" where peek(1) == "-":
                while index < chars.count, chars[index] != "\n" { take() }
            case "/" where peek(1) == "*":
                var depth = 0
                repeat {
                    if peek(0) == "/", peek(1) == "*" { depth += 1; take(2) }
                    else if peek(0) == "*", peek(1) == "/" { depth -= 1; take(2) }
                    else { take() }
                } while depth > 0 && index < chars.count
            case "'":
                let backslashEscapes = index > 0 && (chars[index - 1] == "E" || chars[index - 1] == "e")
                takeQuoted("'", backslashEscapes: backslashEscapes)
            case "\"":
                takeQuoted("\"", backslashEscapes: false)
            case "$":
                if let tag = dollarTag(chars, at: index) {
                    take(tag.count)
                    while index < chars.count, !matches(chars, tag, at: index) { take() }
                    take(tag.count)
                } else {
                    take()
                }
            case ";":
                index += 1
                flush()
            default:
                take()
            }
        }
        flush()
        return statements
    }

    /// `$$` or `$tag$` starting at `index` (a tag is letters, digits and _, not starting with a digit).
    static func dollarTag(_ chars: [Unicode.Scalar], at index: Int) -> [Unicode.Scalar]? {
        if index > 0, chars[index - 1].properties.isAlphabetic || ("0"..."9").contains(chars[index - 1]) || chars[index - 1] == "_" {
            return nil // part of an identifier such as a$b
        }
        var end = index + 1
        while end < chars.count, chars[end] != "$" {
            let scalar = chars[end]
            let valid = scalar.properties.isAlphabetic || scalar == "_" || (end > index + 1 && ("0"..."9").contains(scalar))
            guard valid else { return nil }
            end += 1
        }
        guard end < chars.count else { return nil }
        return Array(chars[index...end])
    }

    static func matches(_ chars: [Unicode.Scalar], _ tag: [Unicode.Scalar], at index: Int) -> Bool {
        guard index + tag.count <= chars.count else { return false }
        return Array(chars[index..<index + tag.count]) == tag
    }
}
