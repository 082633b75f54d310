internal import Glibc

/// Why a location source could not be opened, for logs and `doctor`.
enum LocationError: Error, Sendable, CustomStringConvertible {
    case connection(LocationSource, SocketConnector.Failure)
    case device(LocationSource, SerialPort.Failure)

    var description: String {
        switch self {
        case .connection(let source, .resolve(let host)): "\(source): cannot resolve \(host)"
        case .connection(let source, .connect(let code)): "\(source): \(String(cString: strerror(code)))"
        case .connection(let source, .pathTooLong): "\(source): socket path too long"
        case .device(let source, .open(_, let code)): "\(source): cannot open: \(String(cString: strerror(code)))"
        case .device(let source, .configure(_, let code)): "\(source): cannot configure the tty: \(String(cString: strerror(code)))"
        case .device(let source, .unsupportedRate(let rate)): "\(source): unsupported baud rate \(rate)"
        }
    }
}
