import Foundation
import PeerHarness
import Testing

/// `make demo`: one drive with every peer real and no hardware.
struct DemoTests {
    /// nl2008u.log: a u-blox 8 in a car in the Black Forest; nine valid fixes.
    static let log = Checkout.path("Tests/LocationTests/gpsd/nl2008u.log")

    @Test func theDemoRecordsTheDriveUploadsItWritesTheTrackAndLeavesNothingRunning() throws {
        let work = try TemporaryDirectory("waymark-demo-test")
        defer { work.remove() }
        let started = Date()
        let demo = try ChildProcess(try WaymarkBinary.named("waymark-demo"), ["--log", Self.log, "--out", work.file("trip.geojson")],
                                    aptPackage: "(built by swift build)", logPath: work.file("demo.log"))
        let status = try demo.wait(timeout: 240)
        let elapsed = -started.timeIntervalSinceNow
        let output = demo.output
        #expect(status == 0, "\(output)")
        #expect(elapsed < 120, "the demo took \(Int(elapsed)) s; it must stay under 2 minutes")

        // The summary: the whole drive, every sample uploaded once.
        #expect(output.contains("9 points, 0.69 km  (beaconLost)"), "\(output)")
        #expect(output.contains("distance  0.69 km over 9 fixes"))
        #expect(output.contains("uploaded  13 samples (2 beacon, 2 event, 9 fix), 0 duplicates"))

        // The track, read back by gpsbabel: the log's first and last fixes.
        let track = try ExportTests.readBack(work.file("trip.geojson"), format: "geojson", in: work)
        #expect(track.count == 9)
        #expect(abs(track.first!.lat - 48.217558333) < 1e-6 && abs(track.first!.lon - 8.414495) < 1e-6)
        #expect(abs(track.last!.lat - 48.2208) < 1e-6 && abs(track.last!.lon - 8.421881667) < 1e-6)

        // Every process it started is gone, with its process group.
        let pids = output.split(separator: "\n").compactMap { line in
            line.range(of: ", pid ").flatMap { Int32(line[$0.upperBound...].prefix { $0.isNumber }) }
        }
        #expect(pids.count == 6, "\(output)")
        for pid in pids {
            #expect(kill(pid, 0) != 0 && kill(-pid, 0) != 0, "process \(pid) is still running")
        }
        #expect(output.contains("cleaned up: every process the demo started has exited"))
    }
}
