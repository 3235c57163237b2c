import Foundation
import Yams

/// Domain definitions read from YAML files: the defaults shipped in `domains/`, and what operators import.
public enum DomainFiles {
    public struct Invalid: Error, CustomStringConvertible {
        public let file: String
        public let problems: [String]
        public var description: String { "\(file): " + problems.joined(separator: "; ") }
    }

    /// One definition from YAML text; `file` names it in errors.
    public static func parse(_ yaml: String, file: String) throws -> DomainDefinition {
        let definition: DomainDefinition
        do {
            definition = try YAMLDecoder().decode(DomainDefinition.self, from: yaml)
        } catch let error as DecodingError {
            throw Invalid(file: file, problems: [describe(error)])
        } catch {
            throw Invalid(file: file, problems: ["not valid YAML: \(error)"])
        }
        let problems = definition.problems()
        guard problems.isEmpty else { throw Invalid(file: file, problems: problems) }
        return definition
    }

    /// A definition as the YAML of its file, for operators to edit (``parse(_:file:)`` reads it back).
    public static func yaml(_ definition: DomainDefinition) throws -> String {
        let encoder = YAMLEncoder()
        // Written as people write the files: characters as themselves, long lines kept whole.
        encoder.options = .init(width: -1, allowUnicode: true)
        return try encoder.encode(definition)
    }

    /// Every `*.yaml` / `*.yml` file of a directory (or the one file `path` names), by key. Two files with the
    /// same key are an error: which one wins would be an accident of file names.
    public static func load(_ path: String) throws -> [DomainDefinition] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Invalid(file: path, problems: ["no such file or directory"])
        }
        let files = isDirectory.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: path).filter(isDomainFile).sorted()
                .map { (path as NSString).appendingPathComponent($0) }
            : [path]
        var byKey: [String: String] = [:]
        var definitions: [DomainDefinition] = []
        for file in files {
            let definition = try parse(try String(contentsOfFile: file, encoding: .utf8), file: file)
            if let other = byKey[definition.key] {
                throw Invalid(file: file, problems: ["key '\(definition.key)' is also defined in \(other)"])
            }
            byKey[definition.key] = file
            definitions.append(definition)
        }
        return definitions
    }

    /// When the newest of the directory's domain files changed, and how many there are: a cheap fingerprint for
    /// noticing edits without reading the files.
    public static func fingerprint(_ directory: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        let stamps = names.filter(isDomainFile).sorted().map { name -> String in
            let attributes = try? FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            return "\(name):\(modified):\(size)"
        }
        return stamps.joined(separator: "|")
    }

    static func isDomainFile(_ name: String) -> Bool {
        name.hasSuffix(".yaml") || name.hasSuffix(".yml")
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing '\(parent.isEmpty ? "" : parent + ".")\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "'\(path(context))': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
