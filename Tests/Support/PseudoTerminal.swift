import Foundation

/// A pty pair: programs open `path` as if it were a serial receiver, and the
/// test writes what the receiver would send into the controlling side.
public final class PseudoTerminal: @unchecked Sendable {
    public let path: String
    private let controller: Int32

    public init() throws {
        // posix_openpt and friends are not in the Glibc module; they are thin
        // wrappers over /dev/ptmx and two ioctls (unlock, get number).
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard controller >= 0, ioctl(controller, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
              ioctl(controller, 0x8004_5430 /* TIOCGPTN */, &number) == 0 else {
            throw PeerError.startFailed("a pseudo-terminal", output: String(cString: strerror(errno)))
        }
        path = "/dev/pts/\(number)"
        // Raw mode on the device side, so lines pass untouched.
        let device = open(path, O_RDWR | O_NOCTTY)
        if device >= 0 {
            var settings = termios()
            tcgetattr(device, &settings)
            cfmakeraw(&settings)
            tcsetattr(device, TCSANOW, &settings)
            close(device)
        }
    }

    deinit { close(controller) }

    /// Writes the text as the receiver would.
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
            if written <= 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}
