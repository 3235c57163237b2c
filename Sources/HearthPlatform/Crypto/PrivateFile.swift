import Foundation

/// Files only their owner may read: dev master keys, database passwords, `dev.env`.
public enum PrivateFile {
    /// Writes `text` to `file` with mode 0600, set before any content is written.
    public static func write(_ text: String, to file: URL) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: file.path) {
            _ = manager.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        try Data(text.utf8).write(to: file) // not atomic: keeps the file, and so its mode
    }

    /// The file's content (trimmed); when it is missing or empty, `make()`'s value, written first.
    public static func readOrCreate(_ file: URL, _ make: () -> String) throws -> String {
        if let existing = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           !existing.isEmpty {
            return existing
        }
        let value = make()
        try write(value, to: file)
        return value
    }
}
