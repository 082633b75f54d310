import Basics
import Foundation
import Testing

struct BoundedFileTests {
    private func file(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "bounded-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    @Test func everyLengthUpToTheLimitIsReadWholeAndOneByteMoreIsRefused() throws {
        let limit = 3 * 4096 + 7
        for length in [0, 1, 4095, 4096, 4097, 8191, 8192, 8193, limit - 1, limit, limit + 1, limit + 4096] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let path = try file(bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            if length <= limit {
                #expect(try BoundedFile.read(path, limit: limit) == bytes, "length \(length)")
            } else {
                #expect(throws: BoundedFileError.tooLarge(limit: limit), "length \(length)") { try BoundedFile.read(path, limit: limit) }
            }
        }
    }

    @Test func anEndlessFileIsRefusedAtTheLimit() {
        #expect(throws: BoundedFileError.tooLarge(limit: 1 << 20)) { try BoundedFile.read("/dev/zero", limit: 1 << 20) }
    }

    @Test func aMissingFileSaysWhy() {
        #expect(throws: BoundedFileError.cannotOpen(errno: ENOENT)) { try BoundedFile.read("/nonexistent/waymark", limit: 10) }
        #expect(BoundedFileError.cannotOpen(errno: ENOENT).description == "cannot read the file: No such file or directory")
    }
}
