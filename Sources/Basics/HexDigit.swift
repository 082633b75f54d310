/// One hexadecimal digit's value, for text read byte by byte (NMEA
/// checksums, hex keys and payloads): either case; nil for anything else.
public enum HexDigit {
    @inlinable public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
