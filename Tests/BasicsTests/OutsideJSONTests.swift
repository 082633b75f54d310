@testable import Basics
import Testing

struct OutsideJSONTests {
    private struct Answer: Decodable, Equatable { var accepted: Int; var note: String? }

    /// Each of these traps Foundation 6.0's decoder when it stands in a key;
    /// here each is refused with an error that says where.
    @Test(arguments: [
        (Array(#"{"acc"#.utf8) + [0xFF] + Array(#"": 1}"#.utf8), 5, "not UTF-8"),
        (Array("{\"a\ncc\": 1}".utf8), 3, "a control character in a string"),
        (Array(#"{"a\qc": 1}"#.utf8), 3, "a bad escape"),
        (Array(#"{"a\u12": 1}"#.utf8), 3, "a bad escape"),
        (Array(#"{"a\ud800": 1}"#.utf8), 3, "an unpaired surrogate"),
        (Array(#"{"a\ud800\u0041": 1}"#.utf8), 3, "an unpaired surrogate"),
        (Array(#"{"a\udc00": 1}"#.utf8), 3, "an unpaired surrogate"),
        (Array(#"{"a\"#.utf8), 3, "an escape cut short"),
        (Array(#"{"accepted"#.utf8), 10, "a string cut short"),
    ])
    func aKeyTheDecoderWouldTrapOnIsRefusedWithItsPlace(_ bytes: [UInt8], offset: Int, problem: String) {
        #expect(OutsideJSON.firstBadString(bytes)?.0 == offset)
        #expect(OutsideJSON.firstBadString(bytes)?.1 == problem)
        #expect(throws: DecodingError.self) { try OutsideJSON.decode(Answer.self, from: bytes) }
    }

    @Test func wellFormedStringsWithEscapesAndAnyScriptDecode() throws {
        let text = #"{"accepted": 3, "note": "caf\u00e9 \ud83d\ude97 \"ok\" \\ / \b\f\n\r\t — 車"}"#
        let answer = try OutsideJSON.decode(Answer.self, from: Array(text.utf8))
        #expect(answer == Answer(accepted: 3, note: "café 🚗 \"ok\" \\ / \u{8}\u{c}\n\r\t — 車"))
    }
}
