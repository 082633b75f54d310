internal import Basics

/// Where fixes come from: `gpsd://host:port`, `gpsd:///run/gpsd.sock`, or
/// `nmea:///dev/ttyACM0?baud=9600` for a receiver read directly.
public enum LocationSource: Sendable, Equatable, CustomStringConvertible {
    case gpsd(host: String, port: Int)
    case gpsdSocket(path: String)
    case nmea(device: String, baud: Int)

    public static let baudRates = [4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800]

    public init?(_ text: String) {
        if text.hasPrefix("gpsd:///") {
            self = .gpsdSocket(path: String(text.dropFirst("gpsd://".count)))
        } else if text.hasPrefix("gpsd://") {
            guard let (host, port) = parseHostPort(String(text.dropFirst("gpsd://".count)), defaultPort: 2947) else { return nil }
            self = .gpsd(host: host, port: port)
        } else if text.hasPrefix("nmea:///") {
            let rest = text.dropFirst("nmea://".count)
            let parts = rest.split(separator: "?", maxSplits: 1)
            var baud = 9600
            if parts.count == 2 {
                guard parts[1].hasPrefix("baud="), let rate = Int(parts[1].dropFirst(5)), Self.baudRates.contains(rate) else { return nil }
                baud = rate
            }
            guard parts[0].count > 1 else { return nil }
            self = .nmea(device: String(parts[0]), baud: baud)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .gpsd(let host, let port): "gpsd://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .gpsdSocket(let path): "gpsd://\(path)"
        case .nmea(let device, let baud): "nmea://\(device)?baud=\(baud)"
        }
    }
}

