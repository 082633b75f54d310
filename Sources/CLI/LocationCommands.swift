package import Command
import Config
import FoundationEssentials
internal import Glibc
import Location
import Logging
import Telemetry

/// `gps`: the live fix from the configured source, or a capture decoded offline.
package enum LocationCommands {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "gps", summary: "Show fixes from the configured location source, one per epoch, or decode an NMEA capture.",
                    details: "State changes (unreachable, no device, no fix, fix) go to standard error. --nmea FILE decodes an NMEA capture offline and says how many bad lines it skipped.", options: [
            OptionSpec(name: "--json", help: "NDJSON with gpsd's TPV field names and units"),
            OptionSpec(name: "--count", valueName: "N", help: "stop after N fixes"),
            OptionSpec(name: "--nmea", valueName: "FILE", help: "decode this NMEA capture offline and exit"),
        ], run: gps),
    ]

    static func gps(_ invocation: Invocation) async -> ExitCode {
        let json = invocation.flag("--json")
        var count: Int?
        if let text = invocation.values["--count"] {
            guard let value = Int(text), value > 0 else {
                Log.error("gps: --count must be a positive number, got \(text.debugDescription)")
                return .usage
            }
            count = value
        }
        let output = { (fix: Fix) in print(json ? fix.json : fix.summary) }
        if let path = invocation.values["--nmea"] {
            return decode(path, count: count, output: output)
        }
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        let reader = LocationReader(source: configuration.location.source, options: configuration.location.readerOptions, clock: ContinuousClock())
        return await reader.reading { events in
            var printed = 0
            for await event in events {
                switch event {
                case .fix(let fix):
                    output(fix)
                    fflush(nil)
                    printed += 1
                    if let count, printed >= count { return .ok }
                case .state(let state):
                    Log.notice("gps: \(configuration.location.source): \(state.rawValue)")
                }
            }
            return .ok
        }
    }

    /// Streams the capture through a fixed buffer, printing each fix as its
    /// epoch closes, and stops reading at `count`: memory stays flat whatever
    /// the file's size or line lengths.
    private static func decode(_ path: String, count: Int?, output: (Fix) -> Void) -> ExitCode {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            Log.error("gps: cannot read \(path): \(String(cString: strerror(errno)))")
            return errno == EACCES ? .noPermission : .ioError
        }
        defer { close(fd) }
        var lines = LineBuffer(limit: NMEASentence.maximumLength)
        var assembler = NMEAFixAssembler()
        var printed = 0, sentences = 0, rejected = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        /// Prints a fix; false once `count` fixes are out.
        func emit(_ fix: Fix?) -> Bool {
            guard let fix else { return true }
            output(fix)
            printed += 1
            return printed < (count ?? .max)
        }
        reading: while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got < 0 {
                Log.error("gps: reading \(path): \(String(cString: strerror(errno)))")
                return .ioError
            }
            // End of file ends a last line that has no newline.
            let chunk = got == 0 ? [UInt8(ascii: "\n")][...] : buffer[..<got]
            for line in lines.append(chunk) {
                guard let sentence = try? NMEASentence(utf8: line) else {
                    if !line.isEmpty { rejected += 1 }
                    continue
                }
                sentences += 1
                guard emit(assembler.add(sentence)) else { break reading }
            }
            if got == 0 {
                _ = emit(assembler.finish())
                break
            }
        }
        if rejected + lines.overlong > 0 { Log.notice("gps: \(path): skipped \(rejected) lines that are not NMEA sentences and \(lines.overlong) overlong lines") }
        guard sentences > 0 || printed > 0 else {
            Log.error("gps: \(path) holds no NMEA sentence")
            return .dataError
        }
        return .ok
    }
}
