/// Reassembles lines from reads that split them anywhere (a serial port or a
/// TCP stream hands over whatever it has). Bounded: a line longer than the
/// limit is dropped and counted, so noise cannot grow memory.
public struct LineBuffer: Sendable {
    private var pending: [UInt8] = []
    private var discarding = false
    /// Lines dropped for being too long.
    public private(set) var overlong = 0
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// Adds bytes and returns every line they complete (without the newline).
    public mutating func append<C: Collection>(_ bytes: C) -> [[UInt8]] where C.Element == UInt8 {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discarding, !pending.isEmpty { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(byte)
                if pending.count > limit {
                    overlong += 1
                    discarding = true
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
        return lines
    }
}
