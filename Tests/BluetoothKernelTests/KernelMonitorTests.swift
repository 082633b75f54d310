@testable import BluetoothKernel
import Foundation
import PeerHarness
import Testing

/// The monitor's command as `doc/mgmt-api.txt` lays it out, and the record
/// of handles a killed process leaves for the next.
struct KernelMonitorTests {
    static let nothing = KernelMonitor.Pattern(adType: 0xFF, offset: 0, content: [0xFF, 0xFF] + Array("waymark: adverts come on mgmt".utf8))

    @Test func theAddCommandIsThePatternCountThenEachPatternIn34Bytes() throws {
        let short = KernelMonitor.Pattern(adType: 0x16, offset: 2, content: [0xD2, 0xFC])
        let bytes = try #require(KernelMonitor.parameters([Self.nothing, short]))
        #expect(bytes.count == 1 + 2 * 34)
        #expect(bytes[0] == 2)
        #expect(Array(bytes[1...3]) == [0xFF, 0, 31] && Array(bytes[4..<35]) == Self.nothing.content)
        #expect(Array(bytes[35...37]) == [0x16, 2, 2] && Array(bytes[38...39]) == [0xD2, 0xFC])
        #expect(bytes[40..<69].allSatisfy { $0 == 0 }, "the value is padded to 31 bytes")
    }

    @Test func patternsTheKernelWouldRefuseAreNeverSent() {
        #expect(KernelMonitor.parameters([]) == nil)
        #expect(KernelMonitor.parameters([.init(adType: 0xFF, offset: 0, content: [])]) == nil)
        for offset in 0...40 {
            for length in 1...32 {
                let pattern = KernelMonitor.Pattern(adType: 0xFF, offset: UInt8(offset), content: Array(repeating: 1, count: length))
                #expect((KernelMonitor.parameters([pattern]) != nil) == (offset + length <= 31), "offset \(offset), length \(length)")
            }
        }
        #expect(KernelMonitor.parameters(Array(repeating: Self.nothing, count: 256)) == nil)
    }

    @Test func aRecordNamesOnlyThisBootsMonitorsAndGoesWhenNoneIsLeft() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let record = KernelMonitorRecord(path: work.file("kernel-monitors"))
        #expect(record.monitors(bootID: "boot-a").isEmpty, "no file, no monitors")
        let monitors = [KernelMonitor(controller: 0, handle: 1), KernelMonitor(controller: 1, handle: 65535)]
        try record.save(monitors, bootID: "boot-a")
        #expect(record.monitors(bootID: "boot-a") == monitors)
        #expect(record.monitors(bootID: "boot-b").isEmpty, "a reboot has removed them")
        let attributes = try FileManager.default.attributesOfItem(atPath: record.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try record.save([], bootID: "boot-a")
        #expect(!FileManager.default.fileExists(atPath: record.path))
        try record.save([], bootID: "boot-a")
    }

    /// Every truncation and byte change of a valid record reads as the
    /// monitors of its lines that still parse, never handle 0 (which the
    /// kernel reads as every monitor), and never crashes.
    @Test func aDamagedRecordNeverNamesHandleZeroOrAnotherBoot() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let record = KernelMonitorRecord(path: work.file("kernel-monitors"))
        let valid = Array("boot-a hci0 1\nboot-a hci12 300\n".utf8)
        var variants = (0...valid.count).map { Array(valid.prefix($0)) }
        for index in valid.indices { for byte: UInt8 in [0x00, 0x20, 0x30, 0x0A, 0xFF] { var changed = valid; changed[index] = byte; variants.append(changed) } }
        for bytes in variants {
            try Data(bytes).write(to: URL(fileURLWithPath: record.path))
            let read = record.monitors(bootID: "boot-a")
            #expect(read.allSatisfy { $0.handle != 0 } && read.count <= 2, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            #expect(record.monitors(bootID: "boot-b").isEmpty)
        }
    }
}
