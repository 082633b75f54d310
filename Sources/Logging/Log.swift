import Glibc
import Synchronization

/// Writes one line per message to stderr with a syslog priority prefix
/// (`<3>` … `<7>`), which journald turns back into a level when the daemon
/// runs under systemd.
///
/// Messages are plain text. Callers never pass secrets: tokens are redacted
/// before they reach a log line.
public enum Log {
    public enum Priority: Int, Sendable, Comparable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private static let level = Atomic<Int>(Priority.info.rawValue)

    /// Lines less urgent than this are dropped.
    public static var threshold: Priority {
        get { Priority(rawValue: level.load(ordering: .relaxed)) ?? .info }
        set { level.store(newValue.rawValue, ordering: .relaxed) }
    }

    public static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public static func notice(_ message: @autoclosure () -> String) { write(.notice, message) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    /// Text for a terminal, as it is (a usage or help text): one write(2).
    public static func raw(_ text: String) {
        text.withCString { pointer in
            _ = Glibc.write(STDERR_FILENO, pointer, strlen(pointer))
        }
    }

    private static func write(_ priority: Priority, _ message: () -> String) {
        guard priority.rawValue <= level.load(ordering: .relaxed) else { return }
        // One line, whatever the message holds (a control character from a
        // file or a device is shown, never obeyed by the terminal), in one
        // write(2), which keeps lines whole when several threads log.
        raw("<\(priority.rawValue)>" + TerminalText.escaped(message()) + "\n")
    }
}
