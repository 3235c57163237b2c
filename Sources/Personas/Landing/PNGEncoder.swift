import CompressNIO
import NIOCore

/// Writes 8-bit RGB pixels as a PNG (RFC 2083): signature, IHDR, one zlib-compressed IDAT, IEND. Rows go
/// unfiltered (filter type 0): the preview is flat colour, whose repeating pixels deflate finds on its own, and
/// copying whole rows keeps the encoder a handful of memory copies.
enum PNGEncoder {
    static func encode(width: Int, height: Int, rgb pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count == width * height * 3, "one RGB triple a pixel")
        let stride = width * 3
        var filtered = ByteBuffer()
        filtered.reserveCapacity((stride + 1) * height)
        pixels.withUnsafeBytes { bytes in
            for row in 0..<height {
                filtered.writeInteger(UInt8(0))
                filtered.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[(row * stride)..<((row + 1) * stride)]))
            }
        }
        // Compressing a buffer we own cannot fail short of memory exhaustion.
        let compressed = (try? filtered.compress(with: .zlib())).map { Array(buffer: $0) } ?? []

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // 8 bits, truecolour, deflate, adaptive filtering, no interlace
        png += chunk("IHDR", header)
        png += chunk("IDAT", compressed)
        png += chunk("IEND", [])
        return png
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 as PNG chunks use it (the ISO 3309 polynomial, reflected).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
