/// Reads the fields `CaptureBytes` wrote; every read is bounded by the body.
struct CaptureFields {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    enum Short: Error { case short }

    mutating func take(_ count: Int) throws(Short) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw .short }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
    mutating func u8() throws(Short) -> UInt8 { try take(1).first! }
    mutating func u16() throws(Short) -> UInt16 { try take(2).reversed().reduce(0) { $0 << 8 | UInt16($1) } }
    mutating func u32() throws(Short) -> UInt32 { try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func u64() throws(Short) -> UInt64 { try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func i16() throws(Short) -> Int? {
        let value = Int16(bitPattern: try u16())
        return value == Int16.min ? nil : Int(value)
    }
    mutating func f64() throws(Short) -> Double { Double(bitPattern: try u64()) }
    mutating func short() throws(Short) -> String { String(decoding: try data16(), as: UTF8.self) }
    mutating func long() throws(Short) -> String { String(decoding: try data32(), as: UTF8.self) }
    mutating func data16() throws(Short) -> [UInt8] { Array(try take(Int(try u16()))) }
    mutating func data32() throws(Short) -> [UInt8] { Array(try take(Int(try u32()))) }
    var atEnd: Bool { offset == bytes.count }
}
