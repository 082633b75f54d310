/// Decimal digits written straight into a byte buffer, for text built in
/// bulk (timestamps, sample JSON) without a string per number.
public enum DecimalText {
    /// Appends `value`'s digits, zero-padded on the left to `width`; a
    /// negative value is written as 0.
    public static func append(_ value: Int, width: Int = 1, to bytes: inout [UInt8]) {
        let value = max(0, value)
        var divisor = 1
        var count = 1
        while count < width || value / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
