/// Decimal digits written straight into a byte buffer, for text built in
/// bulk (timestamps, sample JSON) without a string per number.
public enum DecimalText {
    /// Appends `value`'s digits, zero-padded on the left to `width`; a
    /// negative value is written as 0.
    public static func append(_ value: Int, width: Int = 1, to bytes: inout [UInt8]) {
        var rest = max(0, value)
        var count = 1
        var bound = 10
        // Counted by comparison: an Int has at most 19 digits, and 10^18 is
        // the last power of ten it holds.
        while count < 19, rest >= bound {
            count += 1
            bound &*= 10
        }
        // Written from the right, dividing by the constant 10 only.
        let total = max(count, width)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: total))
        var index = bytes.count - 1
        while rest > 0 {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
    }
}
