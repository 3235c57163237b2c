import Foundation

/// A 5×8 pixel font of our own for the social preview image (printable ASCII): text on the picture needs no
/// font files or rasteriser. The server renders the 1200×630 PNG itself, on Linux as on macOS, with no CoreText,
/// FreeType or bundled font, so every glyph lives here as a bitmap; scaled up by a whole number it stays crisp,
/// and the same name draws the same picture on every machine.
///
/// Rows 0–6 stand above the baseline (capitals and digits fill them; lowercase x-height is rows 2–6, ascenders
/// reach row 0 or 1); row 7 is the descender row, used by g j p q y, the comma, the semicolon and the underscore.
enum PixelFont {
    static let width = 5
    static let height = 8

    /// The glyph's rows, top to bottom: bit 4 is the leftmost pixel, bit 0 the rightmost. `nil` for a character
    /// the font does not draw.
    static func glyph(_ character: Character) -> [UInt8]? {
        glyphs[character]
    }

    /// `text` reduced to what the font draws: accents folded ("é" → "e", using Foundation's
    /// `folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)`), typographic quotes and dashes
    /// made ASCII (’ ‘ → ', “ ” → ", – — → -, … → ...), and anything still undrawable dropped; runs of spaces collapsed
    /// and the result trimmed. Any whitespace (a line break, a tab, a no-break space) counts as a space.
    static func drawable(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        var result = ""
        var spacePending = false
        for character in folded {
            for ascii in character.isWhitespace ? " " : typographic[character] ?? String(character) {
                if ascii == " " {
                    spacePending = !result.isEmpty
                } else if glyphs[ascii] != nil {
                    if spacePending { result.append(" ") }
                    spacePending = false
                    result.append(ascii)
                }
            }
        }
        return result
    }

    /// Typographic punctuation and a few letters, with their ASCII stand-ins.
    private static let typographic: [Character: String] = [
        "\u{2018}": "'", "\u{2019}": "'", "\u{201A}": "'", "\u{2032}": "'",
        "\u{201C}": "\"", "\u{201D}": "\"", "\u{201E}": "\"", "\u{2033}": "\"",
        "\u{2010}": "-", "\u{2011}": "-", "\u{2012}": "-", "\u{2013}": "-", "\u{2014}": "-", "\u{2212}": "-",
        "\u{2026}": "...",
        // Latin letters that accent folding leaves alone
        "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D",
    ]

    private static let glyphs: [Character: [UInt8]] = parse(drawing)

    /// The font as pictures, so a glyph can be read and corrected by eye: groups of up to 16 characters, each a
    /// header line naming the group's characters between a leading `[` and a trailing `]` (everything between them
    /// counts, spaces and brackets included, so `[ !"…]` starts with the space), then 8 lines, rows 0–7 top to
    /// bottom, holding the group's glyphs left to right in header order: 5 cells each, `#` on and `.` off, one space
    /// between glyphs. Row 7 is below the baseline. A raw string, so `\` is itself.
    private static let drawing = #"""
    [ !"#$%&'()*+,-./]
    ..... ..#.. .#.#. .#.#. ..#.. ##... .##.. ..#.. ...#. .#... ..... ..... ..... ..... ..... ....#
    ..... ..#.. .#.#. .#.#. .#### ##..# #..#. ..#.. ..#.. ..#.. ..#.. ..#.. ..... ..... ..... ...#.
    ..... ..#.. ..... ##### #.#.. ...#. #.#.. ..... .#... ...#. #.#.# ..#.. ..... ..... ..... ...#.
    ..... ..#.. ..... .#.#. .###. ..#.. .#... ..... .#... ...#. .###. ##### ..... .###. ..... ..#..
    ..... ..#.. ..... ##### ..#.# .#... #.#.# ..... .#... ...#. #.#.# ..#.. ..... ..... ..... .#...
    ..... ..... ..... .#.#. ####. #..## #..#. ..... ..#.. ..#.. ..#.. ..#.. ..... ..... ..... .#...
    ..... ..#.. ..... .#.#. ..#.. ...## .##.# ..... ...#. .#... ..... ..... ..#.. ..... ..#.. #....
    ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .#... ..... ..... .....

    [0123456789:;<=>?]
    .###. ..#.. .###. .###. ...#. ##### ..##. ##### .###. .###. ..... ..... ..... ..... ..... .###.
    #...# .##.. #...# #...# ..##. #.... .#... ....# #...# #...# ..... ..... ...#. ..... .#... #...#
    #..## ..#.. ....# ....# .#.#. ####. #.... ...#. #...# #...# ..... ..... ..#.. ##### ..#.. ....#
    #.#.# ..#.. ...#. ..##. #..#. ....# ####. ..#.. .###. .#### ..#.. ..#.. .#... ..... ...#. ...#.
    ##..# ..#.. ..#.. ....# ##### ....# #...# .#... #...# ....# ..... ..... ..#.. ##### ..#.. ..#..
    #...# ..#.. .#... #...# ...#. #...# #...# .#... #...# ...#. ..... ..... ...#. ..... .#... .....
    .###. .###. ##### .###. ...#. .###. .###. .#... .###. .##.. ..#.. ..#.. ..... ..... ..... ..#..
    ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .#... ..... ..... ..... .....

    [@ABCDEFGHIJKLMNO]
    .###. .###. ####. .###. ####. ##### ##### .###. #...# .###. ..### #...# #.... #...# #...# .###.
    #...# #...# #...# #...# #...# #.... #.... #...# #...# ..#.. ...#. #..#. #.... ##.## #...# #...#
    #.### #...# #...# #.... #...# #.... #.... #.... #...# ..#.. ...#. #.#.. #.... #.#.# ##..# #...#
    #.#.# ##### ####. #.... #...# ####. ####. #.### ##### ..#.. ...#. ##... #.... #.#.# #.#.# #...#
    #.##. #...# #...# #.... #...# #.... #.... #...# #...# ..#.. ...#. #.#.. #.... #...# #..## #...#
    #.... #...# #...# #...# #...# #.... #.... #...# #...# ..#.. #..#. #..#. #.... #...# #...# #...#
    .#### #...# ####. .###. ####. ##### #.... .#### #...# .###. .##.. #...# ##### #...# #...# .###.
    ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....

    [PQRSTUVWXYZ[\]^_]
    ####. .###. ####. .###. ##### #...# #...# #...# #...# #...# ##### .###. #.... .###. ..#.. .....
    #...# #...# #...# #...# ..#.. #...# #...# #...# #...# #...# ....# .#... .#... ...#. .#.#. .....
    #...# #...# #...# #.... ..#.. #...# #...# #...# .#.#. .#.#. ...#. .#... .#... ...#. #...# .....
    ####. #...# ####. .###. ..#.. #...# #...# #.#.# ..#.. ..#.. ..#.. .#... ..#.. ...#. ..... .....
    #.... #.#.# #.#.. ....# ..#.. #...# #...# #.#.# .#.#. ..#.. .#... .#... ...#. ...#. ..... .....
    #.... #..#. #..#. #...# ..#.. #...# .#.#. #.#.# #...# ..#.. #.... .#... ...#. ...#. ..... .....
    #.... .##.# #...# .###. ..#.. .###. ..#.. .#.#. #...# ..#.. ##### .###. ....# .###. ..... .....
    ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... #####

    [`abcdefghijklmno]
    .#... ..... #.... ..... ....# ..... ...## ..... #.... ..#.. ...#. #.... .##.. ..... ..... .....
    ..#.. ..... #.... ..... ....# ..... ..#.. ..... #.... ..... ..... #.... ..#.. ..... ..... .....
    ..... .###. ####. .#### .#### .###. .###. .#### #.##. .##.. ..##. #..#. ..#.. ##.#. #.##. .###.
    ..... ....# #...# #.... #...# #...# ..#.. #...# ##..# ..#.. ...#. #.#.. ..#.. #.#.# ##..# #...#
    ..... .#### #...# #.... #...# ##### ..#.. #...# #...# ..#.. ...#. ##... ..#.. #.#.# #...# #...#
    ..... #...# #...# #.... #...# #.... ..#.. .#### #...# ..#.. ...#. #.#.. ..#.. #.#.# #...# #...#
    ..... .#### ####. .#### .#### .###. ..#.. ....# #...# .###. #..#. #..#. .###. #.#.# #...# .###.
    ..... ..... ..... ..... ..... ..... ..... .###. ..... ..... .##.. ..... ..... ..... ..... .....

    [pqrstuvwxyz{|}~]
    ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..##. ..#.. .##.. .....
    ..... ..... ..... ..... .#... ..... ..... ..... ..... ..... ..... .#... ..#.. ...#. .....
    ####. .#### #.##. .#### ####. #...# #...# #...# #...# #...# ##### .#... ..#.. ...#. .#...
    #...# #...# ##..# #.... .#... #...# #...# #...# .#.#. #...# ...#. ##... ..#.. ...## #.#.#
    #...# #...# #.... .###. .#... #...# #...# #.#.# ..#.. #...# ..#.. .#... ..#.. ...#. ...#.
    ####. .#### #.... ....# .#..# #..## .#.#. #.#.# .#.#. .#### .#... .#... ..#.. ...#. .....
    #.... ....# #.... ####. ..##. .##.# ..#.. .#.#. #...# ....# ##### ..##. ..#.. .##.. .....
    #.... ....# ..... ..... ..... ..... ..... ..... ..... .###. ..... ..... ..... ..... .....
    """#

    /// Reads `drawing`; a malformed drawing is a programming error, so it stops at the first use.
    private static func parse(_ drawing: String) -> [Character: [UInt8]] {
        var lines = ArraySlice(drawing.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        var glyphs: [Character: [UInt8]] = [:]
        while let header = lines.popFirst() {
            precondition(header.count > 2 && header.first == "[" && header.last == "]", "PixelFont: '\(header)' is not a header like [abc]")
            let characters = Array(header.dropFirst().dropLast())
            var rows = [[UInt8]](repeating: [], count: characters.count)
            for row in 0..<height {
                let cells = lines.popFirst()?.split(separator: " ") ?? []
                precondition(cells.count == characters.count, "PixelFont: row \(row) of \(header) needs \(characters.count) glyphs")
                for (index, cell) in cells.enumerated() {
                    precondition(cell.count == width && cell.allSatisfy { $0 == "#" || $0 == "." }, "PixelFont: row \(row) of \(header): '\(cell)'")
                    rows[index].append(cell.reduce(UInt8(0)) { bits, pixel in bits << 1 | (pixel == "#" ? 1 : 0) })
                }
            }
            for (character, glyph) in zip(characters, rows) {
                precondition(glyphs.updateValue(glyph, forKey: character) == nil, "PixelFont: '\(character)' is drawn twice")
            }
        }
        return glyphs
    }
}
