import BlueZ
@testable import Capture
import Foundation
import PeerHarness
import Radio
import Testing
import Upload
import Vocabulary

/// Capture files as the writer leaves them, read back whole, cut, rotated
/// and from a newer waymark.
struct CaptureFileTests {
    /// What a newer Waymark (or a damaged file) may put in a state record:
    /// values that do not parse read as absent, kinds not known as `unknown`.
    @Test func stateValuesThatDoNotParseReadAsAbsentAndUnknownKindsArePassedOver() {
        #expect(CaptureState(kind: "health", values: [("seconds", "not a number")]) == .health(seconds: 0))
        #expect(CaptureState(kind: "requirements", values: [("missing", "location warp-drive"), ("intent", "maybe")])
            == .requirements(missing: [.location], intent: nil, authorized: nil))
        #expect(CaptureState(kind: "event", values: [("event", "laserFired"), ("from", "a")]) == .unknown("event"))
        #expect(CaptureState(kind: "teleported", values: [("to", "mars")]) == .unknown("teleported"))
    }

    /// Every state the daemon captures reads back as it was written: the
    /// radio's (adapter, restarts, recovery steps, shedding) too, which
    /// replay's health reports are counted from.
    @Test func everyCapturedStateReadsBackAsWritten() {
        let states: [CaptureState] = [
            .running(true), .running(false), .requirements(missing: [.location, .adapterPowered], intent: .armed, authorized: true),
            .event(Event(.tripStarted, [.tripID: "trip-1"])), .health(seconds: 300), .scanMode("mgmt"), .adapter("hci1"), .adapter(nil),
            .discoveryRestarted, .recoveryStep("power-cycle"), .strangersShed, .sleep, .wake, .end,
        ]
        for state in states {
            let (kind, values) = state.fields
            #expect(CaptureState(kind: kind, values: values) == state, "\(state)")
        }
    }

    static let header = CaptureHeader(waymarkVersion: "0.1.0", started: 1_764_000_000, bootID: "boot-1", config: "[Recording]\nBeaconLostTimeout = 30s\n",
                                      pairings: #"[{"id":1,"identity":"address:C0:FF:EE:00:00:01","label":"car","role":"vehicle"}]"#)

    /// Records a second apart on the boot clock, so the writer flushes each one.
    static func records(_ count: Int) -> [CaptureRecord] {
        (0..<count).map { index in
            let (boot, wall) = (100 + Double(index), 1_764_000_000 + Double(index))
            switch index % 4 {
            case 0:
                return CaptureRecord(boot: boot, wall: wall, synchronized: true, body: .advert(adapter: "hci\(index % 3)", Sighting(
                    address: BluetoothAddress(value: 0xC0FF_EE00_0000 | UInt64(index % 256), kind: index % 8 == 0 ? .public : nil),
                    rssi: index % 5 == 0 ? nil : -40 - index % 60, txPower: index % 7 == 0 ? -4 : nil, name: index % 3 == 0 ? "" : nil,
                    manufacturerData: [0x004C: Array(repeating: UInt8(index & 0xff), count: index % 30), 0x0499: [5]],
                    serviceData: index % 2 == 0 ? ["0000fcd2-0000-1000-8000-00805f9b34fb": [0x40, 0x02]] : [:], paired: index % 9 == 0,
                    uptimeNanoseconds: UInt64(boot * 1e9))))
            case 1:
                return CaptureRecord(boot: boot, wall: wall, synchronized: false, body: .location(LocationLine(speaks: .nmea, bytes: Array("$GPRMC,\(index)".utf8))))
            case 2:
                // A gpsd line of any length, up to 64 KiB.
                return CaptureRecord(boot: boot, wall: wall, synchronized: true, body: .location(LocationLine(speaks: .gpsd, bytes: Array(repeating: UInt8(ascii: "x"), count: (index * 977) % 65_536))))
            default:
                return CaptureRecord(boot: boot, wall: wall, synchronized: true, body: .state(.event(Event(.adapterFailover, [.from: "hci\(index)", .to: "ü✓"]))))
            }
        }
    }

    static func write(_ records: [CaptureRecord], to path: String, close: Bool = true) throws -> CaptureWriter {
        let writer = try CaptureWriter(.file(path), at: ClockReadingFixture.at(100)) { _ in header }
        for record in records { writer.append(record) }
        if close { writer.close(at: ClockReadingFixture.at(200)) }
        return writer
    }

    static func readAll(_ reader: CaptureReader) -> [CaptureRecord] {
        var out: [CaptureRecord] = []
        while let record = reader.next() { out.append(record) }
        return out
    }

    @Test func everyRecordReadsBackAsWrittenFromA0600File() throws {
        let work = try TemporaryDirectory("waymark-capture")
        defer { work.remove() }
        let records = Self.records(40)
        _ = try Self.write(records, to: work.file("drive.wmcap"))
        let mode = try FileManager.default.attributesOfItem(atPath: work.file("drive.wmcap"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let reader = try CaptureReader(path: work.file("drive.wmcap"))
        #expect(reader.header == Self.header)
        let read = Self.readAll(reader)
        #expect(Array(read.prefix(records.count)) == records)
        #expect(read.last?.body == .state(.end), "close writes an end record")
        #expect(reader.stop == .complete)
        // gzip, as the manual says: zcat reads it.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: work.file("drive.wmcap"))))
        #expect(bytes.starts(with: [0x1f, 0x8b]))
    }

    @Test func aFileCutAtAnyByteReadsUpToItsLastWholeRecordAndSaysItWasCut() throws {
        let work = try TemporaryDirectory("waymark-capture")
        defer { work.remove() }
        let records = Self.records(12)
        // Not closed: a power cut leaves no gzip trailer.
        let writer = try Self.write(records, to: work.file("cut.wmcap"), close: false)
        _ = writer
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: work.file("cut.wmcap"))))
        var lastCount = 0
        var headerEnd: Int?
        for length in 0...bytes.count {
            guard let reader = try? CaptureReader(bytes: Array(bytes.prefix(length))) else {
                #expect(headerEnd == nil, "once the header reads, every longer prefix reads (length \(length))")
                continue
            }
            headerEnd = headerEnd ?? length
            let read = Self.readAll(reader)
            #expect(read == Array(records.prefix(read.count)), "a prefix of the records, in order (length \(length))")
            #expect(read.count >= lastCount, "a longer cut never reads less (length \(length))")
            lastCount = read.count
            guard case .cut(let after, let byte) = reader.stop else {
                Issue.record("length \(length): \(String(describing: reader.stop))")
                continue
            }
            #expect(after == read.count && byte <= Int64(length))
        }
        // Each record was flushed as it came: the uncut file has them all.
        #expect(lastCount == records.count)
    }

    @Test func aCaptureFromANewerFormatIsRefusedWithAClearMessage() throws {
        let newer = Gzip.compress(CaptureCodec.stream(header: Self.header, records: Self.records(2), format: CaptureHeader.currentFormat + 1))
        #expect(throws: CaptureError.newerFormat(path: "capture", format: CaptureHeader.currentFormat + 1, supported: CaptureHeader.currentFormat)) {
            try CaptureReader(bytes: newer)
        }
        let message = CaptureError.newerFormat(path: "drive.wmcap", format: 2, supported: 1).description
        #expect(message.contains("newer") && message.contains("drive.wmcap"))
        #expect(throws: CaptureError.notACapture(path: "capture")) { try CaptureReader(bytes: Gzip.compress(Array("hello\n".utf8))) }
        #expect(throws: CaptureError.notACapture(path: "capture")) { try CaptureReader(bytes: Array("plain text".utf8)) }
    }

    @Test func aDamagedRecordStopsTheReadingThereAndSaysWhy() throws {
        var stream = CaptureCodec.stream(header: Self.header, records: Self.records(8))
        let whole = try CaptureReader(bytes: Gzip.compress(stream))
        #expect(Self.readAll(whole).count == 8)
        // Flip one byte in the last record's body: its checksum fails.
        stream[stream.count - 6] ^= 0x55
        let reader = try CaptureReader(bytes: Gzip.compress(stream))
        #expect(Self.readAll(reader) == Array(Self.records(8).prefix(7)))
        guard case .damaged(let after, _, let reason) = reader.stop else {
            Issue.record("\(String(describing: reader.stop))")
            return
        }
        #expect(after == 7 && reason.contains("checksum"))
    }

    @Test func aDirectoryRotatesAtMaxBytesAndKeepsTheNewestFiles() throws {
        let work = try TemporaryDirectory("waymark-capture")
        defer { work.remove() }
        let directory = work.file("captures")
        let writer = try CaptureWriter(.directory(directory, maxBytes: 4096, keep: 3), at: ClockReadingFixture.at(100)) { _ in Self.header }
        let records = Self.records(120)
        for record in records { writer.append(record) }
        writer.close(at: ClockReadingFixture.at(300))
        let files = CaptureDirectory.files(in: directory)
        #expect(files.count == 3, "\(files)")
        var read: [CaptureRecord] = []
        for file in files {
            let reader = try CaptureReader(path: file)
            #expect(reader.header == Self.header)
            read += Self.readAll(reader).filter { $0.body != .state(.end) }
            #expect(reader.stop == .complete, "\(file)")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // The kept files hold the newest records, in order, with none missing between them.
        #expect(!read.isEmpty && read == Array(records.suffix(read.count)))
    }
}
