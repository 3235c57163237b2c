/// The social preview image of a persona's page (`og:image`, 1200×630, the size link previews expect): the
/// persona's name large, its domain and creator, the app's name and the coaching disclaimer, drawn with our own
/// pixel font on a colour chosen by the domain. Rendered on request (a few milliseconds) and cached by ETag.
public struct PreviewImage: Sendable {
    static let width = 1200
    static let height = 630
    static let margin = 80

    let name: String
    let domain: String
    let creator: String
    let appName: String

    typealias Colour = (r: UInt8, g: UInt8, b: UInt8)

    /// Soft backgrounds with a darker accent each, all dark-text legible (contrast above 7:1 with the ink).
    static let palette: [(background: Colour, accent: Colour)] = [
        ((0xFD, 0xF1, 0xE4), (0xD9, 0x6C, 0x2C)),
        ((0xE8, 0xF3, 0xEC), (0x2F, 0x8F, 0x5B)),
        ((0xE9, 0xEF, 0xFB), (0x3B, 0x63, 0xC4)),
        ((0xF6, 0xEA, 0xF5), (0x9C, 0x3F, 0x95)),
        ((0xFB, 0xF6, 0xDD), (0xB0, 0x8A, 0x12)),
        ((0xE6, 0xF4, 0xF6), (0x1E, 0x87, 0x94)),
        ((0xF9, 0xE8, 0xE8), (0xC0, 0x44, 0x4A)),
    ]
    static let ink: Colour = (0x22, 0x20, 0x1E)
    static let titleScales = [12, 10, 8, 6]

    public func png() -> [UInt8] {
        var canvas = Canvas(width: Self.width, height: Self.height)
        let colours = Self.palette[Self.stableIndex(domain, count: Self.palette.count)]
        canvas.fill(x: 0, y: 0, width: Self.width, height: Self.height, colours.background)
        canvas.fill(x: 0, y: 0, width: 24, height: Self.height, colours.accent)

        // Top to bottom: the app (y 60), the name in one or two lines (from y 140, at most 2 × 10 × 12 = 240 pixels),
        // the domain and the creator below it, the disclaimer on the bottom edge: nothing can overlap.
        let usable = Self.width - 2 * Self.margin
        canvas.text(PixelFont.drawable(appName).uppercased(), x: Self.margin, y: 60, scale: 4, colours.accent, maxWidth: usable)
        let title = PixelFont.drawable(name)
        let (lines, scale) = Self.fit(title.isEmpty ? "Your coach" : title, width: usable, maxLines: 2, scales: Self.titleScales)
        var y = 140
        for line in lines {
            canvas.text(line, x: Self.margin, y: y, scale: scale, Self.ink, maxWidth: usable)
            y += (PixelFont.height + 2) * scale
        }
        y += 16
        canvas.text("\(PixelFont.drawable(domain)) coach", x: Self.margin, y: y, scale: 5, colours.accent, maxWidth: usable)
        let by = PixelFont.drawable(creator)
        if !by.isEmpty { canvas.text("by \(by)", x: Self.margin, y: y + 56, scale: 4, Self.ink, maxWidth: usable) }
        canvas.text("AI coaching, not therapy.", x: Self.margin, y: Self.height - 60, scale: 3, Self.ink, maxWidth: usable)
        return PNGEncoder.encode(width: Self.width, height: Self.height, rgb: canvas.pixels)
    }

    /// Words into at most `maxLines` lines at the largest scale that holds them; the last line is cut with "..."
    /// when even the smallest scale does not.
    static func fit(_ text: String, width: Int, maxLines: Int, scales: [Int]) -> (lines: [String], scale: Int) {
        for scale in scales {
            let lines = wrap(text, columns: columns(width: width, scale: scale))
            if lines.count <= maxLines { return (lines, scale) }
        }
        let scale = scales.last ?? 6
        let columns = columns(width: width, scale: scale)
        var lines = Array(wrap(text, columns: columns).prefix(maxLines))
        if let last = lines.popLast() { lines.append(String(last.prefix(max(0, columns - 3))) + "...") }
        return (lines, scale)
    }

    static func columns(width: Int, scale: Int) -> Int { (width + scale) / ((PixelFont.width + 1) * scale) }

    /// Greedy word wrap; a word longer than a line is broken.
    static func wrap(_ text: String, columns: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            var word = String(word)
            while word.count > columns {
                if !current.isEmpty { lines.append(current); current = "" }
                lines.append(String(word.prefix(columns)))
                word = String(word.dropFirst(columns))
            }
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= columns {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// The same index for the same text on every run and machine (Swift's `hashValue` is seeded per process).
    static func stableIndex(_ text: String, count: Int) -> Int {
        Int(text.lowercased().utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 } % UInt32(count))
    }

    /// RGB pixels, row by row.
    struct Canvas {
        let width: Int
        let height: Int
        var pixels: [UInt8]

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            pixels = [UInt8](repeating: 0, count: width * height * 3)
        }

        /// Paints the rectangle's first row pixel by pixel, then copies that row down (a memory copy a row).
        mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ colour: Colour) {
            let left = max(0, x), right = min(width, x + w), top = max(0, y), bottom = min(height, y + h)
            guard left < right, top < bottom else { return }
            let rowStart = (top * width + left) * 3, rowBytes = (right - left) * 3
            pixels.withUnsafeMutableBytes { buffer in
                for index in stride(from: rowStart, to: rowStart + rowBytes, by: 3) {
                    buffer[index] = colour.r
                    buffer[index + 1] = colour.g
                    buffer[index + 2] = colour.b
                }
                let first = UnsafeRawBufferPointer(rebasing: buffer[rowStart..<(rowStart + rowBytes)])
                for row in (top + 1)..<bottom {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[((row * width + left) * 3)...]).copyMemory(from: first)
                }
            }
        }

        /// One line of text from its top-left corner, clipped at `maxWidth`.
        mutating func text(_ text: String, x: Int, y: Int, scale: Int, _ colour: Colour, maxWidth: Int) {
            var left = x
            for character in text {
                guard left + PixelFont.width * scale <= x + maxWidth else { return }
                if let rows = PixelFont.glyph(character) {
                    for (row, bits) in rows.enumerated() {
                        for column in 0..<PixelFont.width where bits & (1 << (PixelFont.width - 1 - column)) != 0 {
                            fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale, colour)
                        }
                    }
                }
                left += (PixelFont.width + 1) * scale
            }
        }
    }
}
