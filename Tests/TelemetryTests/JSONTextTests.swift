import Basics
import Telemetry
import Testing

/// The hand-written JSON pieces that every sample and batch goes through.
struct JSONTextTests {
    @Test func stringsNeedingNoEscapeAreCopiedAndEveryOtherIsEscapedByte() {
        func quoted(_ text: some StringProtocol) -> String {
            var bytes: [UInt8] = []
            JSONText.appendQuoted(text, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(quoted("trip-42") == #""trip-42""#)
        #expect(quoted("Grüße, 東京") == "\"Grüße, 東京\"")
        #expect(quoted("a\"b\\c\nd\re\tf\u{1}g\u{1f}") == #""a\"b\\c\nd\re\tf\u0001g\u001f""#)
        // A substring has no contiguous storage of its own in every case: the same result.
        #expect(quoted("xx\"yy".dropFirst(1)) == #""x\"yy""#)
        // Every byte value below 0x80 in one string, against the count.
        let all = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        var bytes: [UInt8] = []
        JSONText.appendQuoted(all, to: &bytes)
        #expect(bytes.count == JSONText.quotedCount(all))
    }

    @Test func decimalDigitsAreRightAtEveryPowerOfTenAndPadded() {
        func text(_ value: Int, width: Int = 1) -> String {
            var bytes: [UInt8] = Array("x".utf8)
            DecimalText.append(value, width: width, to: &bytes)
            return String(decoding: bytes.dropFirst(), as: UTF8.self)
        }
        var power = 1
        for _ in 0..<19 {
            for value in [power - 1, power, power + 1] where value >= 0 {
                #expect(text(value) == String(value))
            }
            if power > Int.max / 10 { break }
            power *= 10
        }
        #expect(text(Int.max) == String(Int.max))
        #expect(text(7, width: 3) == "007")
        #expect(text(2026, width: 2) == "2026")
        #expect(text(0, width: 4) == "0000")
        #expect(text(-5) == "0")
    }
}
