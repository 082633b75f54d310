internal import Glibc

/// Opens an NMEA receiver: a tty set to raw 8N1 at the configured rate, or
/// anything else readable (a FIFO, a pty, a capture file) as it is.
enum SerialPort {
    enum Failure: Error, Sendable, Equatable {
        case open(path: String, errno: Int32)
        case configure(path: String, errno: Int32)
        case unsupportedRate(Int)
    }

    static func open(_ path: String, baud: Int) throws(Failure) -> Int32 {
        guard let speed = Self.speed(baud) else { throw .unsupportedRate(baud) }
        let fd = Glibc.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .open(path: path, errno: errno) }
        guard isatty(fd) == 1 else { return fd }
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            let error = errno
            close(fd)
            throw .configure(path: path, errno: error)
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0, tcsetattr(fd, TCSANOW, &settings) == 0 else {
            let error = errno
            close(fd)
            throw .configure(path: path, errno: error)
        }
        tcflush(fd, TCIFLUSH)
        return fd
    }

    private static func speed(_ baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        default: nil
        }
    }
}
