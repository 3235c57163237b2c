import Crypto
import Foundation

/// One numbered SQL file from `migrations/`, e.g. `0002_accounts.sql`.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String
    /// SHA-256 of the file's bytes, hex. Recorded in the ledger so an edited, already applied file is caught.
    public let checksum: String

    public var fileName: String { String(format: "%04d_%@.sql", version, name) }

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = Secrets.hex(Array(SHA256.hash(data: Data(sql.utf8))))
    }

    /// Reads every `NNNN_name.sql` in `directory`, ordered by number.
    /// Other files are an error rather than silently ignored: a typo must not skip a migration.
    public static func load(from directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError.unreadableDirectory(directory.path)
        }
        var migrations: [Migration] = []
        for fileName in names.sorted() where !fileName.hasPrefix(".") {
            guard let (version, name) = parse(fileName: fileName) else {
                throw MigrationError.badFileName(fileName)
            }
            let sql = try String(contentsOf: directory.appendingPathComponent(fileName), encoding: .utf8)
            if let clash = migrations.first(where: { $0.version == version }) {
                throw MigrationError.duplicateVersion(clash.fileName, fileName)
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        return migrations.sorted { $0.version < $1.version }
    }

    static func parse(fileName: String) -> (Int, String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        let parts = stem.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 4, let version = Int(parts[0]), version > 0,
              parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        return (version, String(parts[1]))
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case unreadableDirectory(String)
    case badFileName(String)
    case duplicateVersion(String, String)
    case changedAfterApply(file: String)
    case missingFile(version: Int, name: String)
    case failed(file: String, line: Int?, reason: String)

    public var description: String {
        switch self {
        case .unreadableDirectory(let path):
            "cannot read the migrations directory \(path)"
        case .badFileName(let name):
            "\(name): migration files must be named NNNN_name.sql (four digits, letters, digits and _)"
        case .duplicateVersion(let first, let second):
            "\(first) and \(second) share a version number"
        case .changedAfterApply(let file):
            "\(file) was changed after it was applied (checksum differs); add a new migration instead of editing it"
        case .missingFile(let version, let name):
            "migration \(String(format: "%04d", version))_\(name).sql is recorded as applied but its file is missing"
        case .failed(let file, let line, let reason):
            "\(file)\(line.map { " line \($0)" } ?? ""): \(reason)"
        }
    }
}
