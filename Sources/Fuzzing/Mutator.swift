public import Basics

/// Inputs made from valid ones: the shapes that find what random bytes
/// rarely do, such as a long line behind a valid prefix, a number out of
/// range in the right place, or a cut at every length.
public struct Mutator: Sendable {
    /// Text that breaks number and string handling when spliced in.
    public static let tokens: [[UInt8]] = [
        "NaN", "nan", "inf", "-inf", "Infinity", "1e300", "1e400", "-1e300", "-5", "-0", "0", "1e20", "99999999999999999999",
        "4294967296", "65536", "256", "255", "-1", "\"\"", "null", "true", "[]", "{}", ",", ":", "\"", "\\", "*", "$", "\r", "\n", "\0",
        "\u{FFFD}", "=", "[", "]", "#",
    ].map { Array($0.utf8) }

    public init() {}

    /// One mutation of `seed`.
    public func mutate(_ seed: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        for _ in 0...random.below(3) {
            let at = bytes.isEmpty ? 0 : random.below(bytes.count + 1)
            switch random.below(8) {
            case 0 where !bytes.isEmpty: // flip a bit
                let index = min(at, bytes.count - 1)
                bytes[index] ^= 1 << UInt8(random.below(8))
            case 1 where !bytes.isEmpty: // replace a byte
                bytes[min(at, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            case 2: // splice in a token, replacing what follows up to a separator
                let token = Self.tokens[random.below(Self.tokens.count)]
                var end = at
                while end < bytes.count, !Self.isSeparator(bytes[end]) { end += 1 }
                bytes.replaceSubrange(at..<end, with: token)
            case 3: // cut
                bytes = Array(bytes.prefix(at))
            case 4 where !bytes.isEmpty: // delete a run
                let end = min(bytes.count, at + 1 + random.below(8))
                bytes.removeSubrange(min(at, end)..<end)
            case 5: // repeat a chunk: long fields, long lines
                let start = bytes.isEmpty ? 0 : random.below(bytes.count)
                let chunk = Array(bytes[start..<min(bytes.count, start + 1 + random.below(16))])
                bytes.insert(contentsOf: Array(repeating: chunk, count: 1 + random.below(64)).joined(), at: at)
            case 6: // a run of digits, for numbers of every size
                bytes.insert(contentsOf: (0..<1 + random.below(400)).map { _ in UInt8(ascii: "0") + UInt8(random.below(10)) }, at: at)
            default: // insert random bytes
                bytes.insert(contentsOf: (0..<1 + random.below(8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            }
        }
        return bytes
    }

    /// `prefix` followed by `length` bytes of a filler, for every-length sweeps.
    public func padded(_ prefix: [UInt8], to length: Int, filler: Int, _ random: inout SplitMix64) -> [UInt8] {
        var bytes = Array(prefix.prefix(length))
        while bytes.count < length {
            switch filler % 4 {
            case 0: bytes.append(UInt8(ascii: "0") + UInt8(bytes.count % 10))
            case 1: bytes.append(bytes.count % 3 == 0 ? UInt8(ascii: ",") : UInt8(ascii: "9"))
            case 2: bytes.append(UInt8(ascii: "x"))
            default: bytes.append(UInt8(truncatingIfNeeded: random.next()))
            }
        }
        return bytes
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "*"), UInt8(ascii: "\n"), UInt8(ascii: " ")]
            .contains(byte)
    }
}
