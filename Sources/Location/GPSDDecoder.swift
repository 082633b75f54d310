internal import Telemetry
internal import CGPS

/// Decodes gpsd's JSON reports with libgps, gpsd's own client library, so the
/// gateway reads the protocol exactly as gpsd's tools do. The transport (and
/// with it reconnects and the watchdog) stays ours; libgps only parses.
///
/// libgps is lenient: a missing or mistyped key leaves its field unset, and
/// it never fails a line. Each line gets one `libgps_json_unpack` call, not
/// `gps_unpack`, whose loop over a buffer never ends on some malformed
/// reports in libgps 3.22 (found by fuzzing). What it cannot tell us, which class a line was, is
/// read from the `{"class":"…"` that gpsd writes first; a line without it is
/// refused. Not Sendable: one decoder per reader.
public final class GPSDDecoder {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var buffer: [CChar] = []

    public init() {
        guard let data = waymark_gps_new() else { fatalError("out of memory allocating a gps_data_t") }
        self.data = data
    }

    deinit { free(data) }

    public func decode(_ line: [UInt8]) throws(GPSDReport.Problem) -> GPSDReport {
        guard let kind = Self.reportClass(line) else { throw .notAReport }
        // Classes the gateway does not use (ATT, IMU, GST, PPS, …) are not parsed at all.
        guard Self.used.contains(kind) else { return .other(class: kind) }
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(line.count + 1)
        for byte in line { buffer.append(CChar(bitPattern: byte == 0 ? 0x20 : byte)) }
        buffer.append(0)
        buffer.withUnsafeMutableBufferPointer { waymark_gps_unpack(data, $0.baseAddress) }
        switch kind {
        case "VERSION":
            return .version(release: String(cString: waymark_gps_release(data)))
        case "DEVICES":
            let paths = (0..<Int32(waymark_gps_device_count(data))).compactMap { index in
                waymark_gps_devices_active(data, index) != 0 ? String(cString: waymark_gps_devices_path(data, index)) : nil
            }
            return .devices(paths)
        case "DEVICE":
            return .device(path: String(cString: waymark_gps_device_path(data)), active: waymark_gps_device_active(data) != 0)
        case "WATCH":
            return .watch
        case "TPV":
            let path = String(cString: waymark_gps_device_path(data))
            return .tpv(fix(), device: path.isEmpty ? nil : path)
        case "SKY":
            return .sky(used: Int(data.pointee.satellites_used), seen: Int(data.pointee.satellites_visible))
        case "ERROR":
            return .error(message: String(cString: waymark_gps_error(data)))
        default:
            return .other(class: kind)
        }

    }

    private static let used: Set<String> = ["VERSION", "DEVICES", "DEVICE", "WATCH", "TPV", "SKY", "ERROR"]

    private func fix() -> Fix {
        let raw = data.pointee.fix
        let set = data.pointee.set
        var fix = Fix()
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
        if set & waymark_gps_time_set() != 0, raw.time.tv_sec > 0 {
            fix.time = Double(raw.time.tv_sec) + Double(raw.time.tv_nsec) / 1e9
        }
        if set & waymark_gps_mode_set() != 0, (0...3).contains(raw.mode) { fix.mode = Int(raw.mode) }
        if set & waymark_gps_status_set() != 0, raw.status > 0 { fix.status = Int(raw.status) }
        if let lat = finite(raw.latitude), let lon = finite(raw.longitude), abs(lat) <= 90, abs(lon) <= 180 {
            fix.lat = lat
            fix.lon = lon
        }
        fix.altHAE = finite(raw.altHAE)
        fix.altMSL = finite(raw.altMSL)
        fix.speed = finite(raw.speed)
        fix.track = finite(raw.track)
        fix.climb = finite(raw.climb)
        fix.eph = finite(raw.eph)
        fix.epv = finite(raw.epv)
        fix.ept = finite(raw.ept)
        return fix
    }

    /// `NAME` from a line that starts `{"class":"NAME"`, as gpsd writes every report.
    static func reportClass(_ line: [UInt8]) -> String? {
        let prefix = Array(#"{"class":""#.utf8)
        guard line.count > prefix.count + 1, line.starts(with: prefix) else { return nil }
        var end = prefix.count
        while end < line.count, end - prefix.count < 16, line[end] != UInt8(ascii: "\"") {
            guard (0x41...0x5A).contains(line[end]) || (0x30...0x39).contains(line[end]) else { return nil }
            end += 1
        }
        guard end < line.count, line[end] == UInt8(ascii: "\""), end > prefix.count else { return nil }
        return String(decoding: line[prefix.count..<end], as: UTF8.self)
    }
}
