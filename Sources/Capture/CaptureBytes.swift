/// Little-endian fields appended to a record's body.
struct CaptureBytes {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value & 0xff), UInt8(value >> 8)] }
    mutating func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
    mutating func u64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
    mutating func i16(_ value: Int?) {
        u16(UInt16(bitPattern: value.map { Int16(clamping: $0) == Int16.min ? Int16.min + 1 : Int16(clamping: $0) } ?? Int16.min))
    }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }
    /// Up to 65,535 bytes; longer is cut at a character boundary.
    mutating func short(_ text: String) { data16(Array(text.utf8.prefix(Int(UInt16.max)))) }
    mutating func long(_ text: String) { data32(Array(text.utf8)) }
    mutating func data16(_ data: [UInt8]) {
        let data = data.prefix(Int(UInt16.max))
        u16(UInt16(data.count))
        bytes += data
    }
    mutating func data32(_ data: [UInt8]) {
        u32(UInt32(clamping: data.count))
        bytes += data.prefix(Int(UInt32.max))
    }
}
