/// Decimal digits written straight into a byte buffer, for text built in
/// bulk (timestamps, sample JSON) without a string per number.
public enum DecimalText {
    /// Appends `value`'s digits, zero-padded on the left to `width`; a
    /// negative value is written as 0.
    public static func append(_ value: Int, width: Int = 1, to bytes: inout [UInt8]) {
        var rest = UInt(max(0, value))
        // Written from the right into a stack buffer (an Int has at most 19
        // digits), dividing by the constant 10 only, then copied in once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            for _ in 0..<max(0, width - (digits.count - index)) { bytes.append(UInt8(ascii: "0")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }
}
