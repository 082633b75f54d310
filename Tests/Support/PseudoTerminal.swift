import Foundation

/// A pty pair: programs open `path` as if it were a serial receiver, and the
/// test writes what the receiver would send into the controlling side.
public final class PseudoTerminal: @unchecked Sendable {
    public let path: String
    private let controller: Int32
    /// The device side, held open so the pty never hangs up while the
    /// program under test closes and reopens it (a gpsd restart).
    private let device: Int32

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
        _ = fcntl(controller, F_SETFL, fcntl(controller, F_GETFL) | O_NONBLOCK)
        // Raw mode on the device side, so lines pass untouched.
        device = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        var settings = termios()
        tcgetattr(device, &settings)
        cfmakeraw(&settings)
        tcsetattr(device, TCSANOW, &settings)
    }

    deinit {
        close(device)
        close(controller)
    }

    /// Writes the text as the receiver would. Like a real receiver it does
    /// not wait for a reader: what does not fit in the pty's buffer is lost,
    /// unless `waitForRoom` asks to wait until the reader takes it.
    public func send(_ text: String, waitForRoom: Bool = false) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR || (errno == EAGAIN && waitForRoom) {
                usleep(500)
                continue
            }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// `$BODY*hh` with its checksum and line ending.
    public static func sentence(_ body: String) -> String { NMEAText.sentence(body) }
}
