import Foundation
import HearthPlatform

/// A persona's avatar as uploaded, checked before it is stored: the bytes must be the PNG or JPEG the request
/// says they are (read from the file's own header, not trusted from `Content-Type`), at most ``maximumBytes``,
/// and between ``dimensions`` pixels on each side. Nothing is decoded beyond the header: the image is stored
/// and served as uploaded.
struct AvatarImage: Sendable, Equatable {
    enum Kind: String, Sendable {
        case png = "image/png"
        case jpeg = "image/jpeg"
    }

    let kind: Kind
    let width: Int
    let height: Int
    let bytes: [UInt8]

    static let maximumBytes = 1_048_576
    static let tooLarge = APIError(.contentTooLarge, code: "image_too_large", message: "Avatars are at most 1 MB.")
    static let dimensions = 16...4096

    /// Checks `bytes` declared as `contentType`; a 415 or 422 naming what is wrong otherwise.
    init(bytes: [UInt8], contentType: String?) throws {
        let declared = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let declared, let kind = Kind(rawValue: declared == "image/jpg" ? "image/jpeg" : declared) else {
            throw APIError(.unsupportedMediaType, code: "unsupported_image_type", message: "Avatars are PNG or JPEG images (Content-Type image/png or image/jpeg).")
        }
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes else {
            throw Self.tooLarge
        }
        let size: (width: Int, height: Int)?
        switch kind {
        case .png: size = Self.pngSize(bytes)
        case .jpeg: size = Self.jpegSize(bytes)
        }
        guard let size else { throw APIError.validation("The image is not a readable \(kind == .png ? "PNG" : "JPEG") file.") }
        guard Self.dimensions.contains(size.width), Self.dimensions.contains(size.height) else {
            throw APIError.validation("Avatars are \(Self.dimensions.lowerBound) to \(Self.dimensions.upperBound) pixels on each side.")
        }
        self.kind = kind
        self.width = size.width
        self.height = size.height
        self.bytes = bytes
    }

    init(kind: Kind, width: Int, height: Int, bytes: [UInt8]) {
        self.kind = kind
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The signature, then the IHDR chunk first, whose data starts with the width and height (big-endian).
    static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, Array(bytes[0..<8]) == pngSignature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        return (bigEndian(bytes[16..<20]), bigEndian(bytes[20..<24]))
    }

    /// Walks the JPEG markers from SOI to the first start-of-frame (SOF0…SOF15 but DHT, JPG and DAC), whose data
    /// holds the height and width.
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }
            // Standalone markers carry no length.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
            let length = bigEndian(bytes[(index + 2)..<(index + 4)])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard index + 9 <= bytes.count else { return nil }
                return (bigEndian(bytes[(index + 7)..<(index + 9)]), bigEndian(bytes[(index + 5)..<(index + 7)]))
            }
            index += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
