import CZlib
import Foundation

/// An 8-bit RGB or RGBA PNG, decoded with zlib: enough to look at a
/// browser's screenshot pixel by pixel.
public struct PNGImage {
    public let width: Int
    public let height: Int
    /// Bytes per pixel: 3 or 4.
    let channels: Int
    let pixels: [UInt8]

    public enum Problem: Error { case notPNG, unsupported(String), corrupt(String) }

    public init(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Problem.notPNG }
        func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 8
        var (width, height, channels) = (0, 0, 0)
        var compressed: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = u32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { throw Problem.corrupt("chunk \(type) runs past the end") }
            let data = bytes[offset + 8..<offset + 8 + length]
            switch type {
            case "IHDR":
                (width, height) = (u32(offset + 8), u32(offset + 12))
                let (depth, color, interlace) = (data[data.startIndex + 8], data[data.startIndex + 9], data[data.startIndex + 12])
                guard depth == 8, color == 2 || color == 6, interlace == 0 else { throw Problem.unsupported("depth \(depth), colour type \(color), interlace \(interlace)") }
                channels = color == 6 ? 4 : 3
            case "IDAT": compressed += data
            default: break
            }
            offset += 12 + length
        }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: (stride + 1) * height)
        var size = UInt(raw.count)
        guard uncompress(&raw, &size, compressed, UInt(compressed.count)) == Z_OK, size == UInt(raw.count) else { throw Problem.corrupt("image data") }
        var pixels = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            for column in 0..<stride {
                let x = raw[row * (stride + 1) + 1 + column]
                let a = column >= channels ? Int(pixels[row * stride + column - channels]) : 0
                let b = row > 0 ? Int(pixels[(row - 1) * stride + column]) : 0
                let c = row > 0 && column >= channels ? Int(pixels[(row - 1) * stride + column - channels]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw Problem.corrupt("filter \(filter) on row \(row)")
                }
                pixels[row * stride + column] = UInt8(truncatingIfNeeded: Int(x) + predicted)
            }
        }
        (self.width, self.height, self.channels, self.pixels) = (width, height, channels, pixels)
    }

    /// The red, green and blue of the pixel at (`x`, `y`).
    public func rgb(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let at = (y * width + x) * channels
        return (pixels[at], pixels[at + 1], pixels[at + 2])
    }
}
