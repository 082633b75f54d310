package import Basics
package import Capture
import FoundationEssentials
import Logging
import Pairings
package import Radio
import Storage
package import Store

/// Where the daemon (and `waymark record`) write what they hear: each
/// record is stamped with both clocks as it is written.
package struct CaptureTap: Sendable {
    package let writer: CaptureWriter
    package let clock: any SystemClock

    package init(writer: CaptureWriter, clock: any SystemClock) {
        (self.writer, self.clock) = (writer, clock)
    }

    /// Starts capturing to `target`, with the config file's text (secret
    /// file names dropped) and the store's pairings (without keys) in each
    /// file's header; nil, logged, when the file cannot be created.
    package static func open(_ target: CaptureWriter.Target, configPath: String, store: GatewayStore,
                             clock: any SystemClock = KernelClock(), failing: String = "capture: %@; recording goes on without it") -> CaptureTap? {
        let config = redacted((try? String(contentsOfFile: configPath, encoding: .utf8)) ?? "")
        let bootID = clock.read().bootID
        do {
            let writer = try CaptureWriter(target, at: clock.read()) { wall in
                let pairings = BestEffort.read("the pairings for the capture's header", or: []) { try PairingStore(database: store.database).all() }
                let json = (try? JSONEncoder.sorted.encode(pairings)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
                return CaptureHeader(waymarkVersion: Waymark.version, started: wall, bootID: bootID, config: config, pairings: json)
            }
            Log.notice("capture: writing \(writer.path ?? "")")
            return CaptureTap(writer: writer, clock: clock)
        } catch {
            Log.error(failing.replacing("%@", with: "\(error)"))
            return nil
        }
    }

    /// The config text without the lines naming secret files: they mean
    /// nothing on the machine that replays, and a capture is shared.
    package static func redacted(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let key = line.split(separator: "=", maxSplits: 1).first.map { String($0).trimmingWhitespace() } ?? ""
            return !["SecretFile", "PasswordFile", "KeyFile"].contains { key.hasSuffix($0) }
        }.joined(separator: "\n")
    }

    package func append(_ body: CaptureRecord.Body, at reading: ClockReading? = nil) {
        let reading = reading ?? clock.read()
        writer.append(CaptureRecord(boot: reading.boot, wall: reading.wall, synchronized: reading.synchronized, body: body))
    }

    package func advert(_ sighting: Sighting, adapter: AdapterName?, at reading: ClockReading? = nil) {
        append(.advert(adapter: adapter?.rawValue ?? "", sighting), at: reading)
    }

    package func state(_ state: CaptureState) { append(.state(state)) }

    package func close() { writer.close(at: clock.read()) }
}
