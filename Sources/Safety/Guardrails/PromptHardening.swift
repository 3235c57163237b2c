import Foundation

/// Makes text written by a user or a persona creator safe to place in a prompt: it stays data, whatever it
/// says. Models give weight to what looks like their own chat template, so role markers ("system:",
/// "<|im_start|>", "[INST]", "### Instruction", "</persona>") are taken out of it before it is delimited.
/// What remains is the person's words; the instructions around it say that nothing inside can override them.
public enum PromptHardening {
    /// Template tokens of common chat formats, removed wherever they appear.
    static let templateTokens: [String] = [
        "<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>", "<|endoftext|>", "<|eot_id|>",
        "<|start_header_id|>", "<|end_header_id|>", "<|begin_of_text|>", "[INST]", "[/INST]", "<<SYS>>", "<</SYS>>",
        "<s>", "</s>",
    ]

    /// Words that, at the start of a line and followed by a colon, make the line look like a new turn.
    static let roleWords: Set<String> = [
        "system", "assistant", "user", "developer", "human", "ai", "model", "instruction", "instructions", "prompt",
        "system prompt", "coach",
    ]

    /// Tags that open or close one of Hearth's delimited blocks (or pretend to be a system block); compiled once.
    static let blockTag = try! NSRegularExpression(
        pattern: #"</?\s*(system|assistant|user|developer|instructions?|persona|person|context|coach)[^>]*>"#,
        options: [.caseInsensitive]
    )

    /// `text` with role markers and template tokens removed and Hearth's own delimiters defused.
    public static func neutralise(_ text: String) -> String {
        // The chat turn runs this on every message of the history: most have nothing to take out.
        mayNeedNeutralising(text) ? neutraliseAll(text) : text
    }

    /// ``neutralise`` without the shortcut (the tests compare the two).
    static func neutraliseAll(_ text: String) -> String {
        var cleaned = text
        // Every template token and tag has a "<" or "[".
        if text.contains(where: { $0 == "<" || $0 == "[" }) {
            for token in templateTokens {
                cleaned = cleaned.replacingOccurrences(of: token, with: " ", options: .caseInsensitive)
            }
            cleaned = blockTag.stringByReplacingMatches(in: cleaned, range: NSRange(cleaned.startIndex..., in: cleaned), withTemplate: " ")
        }
        let lines = cleaned.split(separator: "\n", omittingEmptySubsequences: false).map(neutraliseLine)
        return lines.joined(separator: "\n")
    }

    /// False when ``neutralise`` would return `text` as it is: nothing it removes can start without a "<", "[",
    /// ":" or "#", or a line's leading space or tab. One pass over the bytes (all ASCII, which never occurs
    /// inside a longer UTF-8 sequence).
    static func mayNeedNeutralising(_ text: String) -> Bool {
        var lineStart = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "<"), UInt8(ascii: "["), UInt8(ascii: ":"), UInt8(ascii: "#"): return true
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if lineStart { return true }
            case UInt8(ascii: "\n"):
                lineStart = true
                continue
            default:
                break
            }
            lineStart = false
        }
        return false
    }

    /// A line's leading heading marks and role label ("### System:", "ASSISTANT:") removed.
    static func neutraliseLine(_ line: Substring) -> String {
        var rest = line.drop { $0 == " " || $0 == "\t" }
        // Markdown headings are how Hearth's own prompt is sectioned ("#1 goal" is not a heading).
        let hashes = rest.prefix { $0 == "#" }
        if !hashes.isEmpty, rest.dropFirst(hashes.count).first == " " {
            rest = rest.dropFirst(hashes.count).drop { $0 == " " }
        }
        if let colon = rest.firstIndex(of: ":") {
            let label = rest[..<colon].lowercased().trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "[]*_"))
            if roleWords.contains(label) {
                return String(rest[rest.index(after: colon)...].drop { $0 == " " })
            }
        }
        return String(rest)
    }
}
