/// Everything the D-Bus layer can fail with.
public enum DBusError: Error, Sendable, Equatable {
    /// The peer (or the bus) answered with an error reply.
    case remote(DBusErrorName, message: String)
    /// Opening the connection failed; `name` and `message` come from libdbus.
    case connectionFailed(address: String, name: DBusErrorName, message: String)
    /// The connection is closed; nothing more can be sent on it.
    case disconnected
    /// A value cannot be sent as given: a bad signature, object path, name, or
    /// an element that does not match its array's type.
    case invalidArgument(String)
    /// A received message does not have the shape the caller expected.
    case unexpectedReply(expected: String, got: String)
    /// The bytes are not a valid D-Bus message.
    case malformedMessage(String)
    /// libdbus could not allocate memory.
    case outOfMemory

    /// The D-Bus error name, when there is one.
    public var name: DBusErrorName? {
        switch self {
        case .remote(let name, _), .connectionFailed(_, let name, _): name
        case .disconnected: .disconnected
        default: nil
        }
    }
}

extension DBusError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .remote(let name, let message): "\(name.rawValue): \(message)"
        case .connectionFailed(let address, let name, let message):
            "cannot connect to \(address): \(name.rawValue): \(message)"
        case .disconnected: "the D-Bus connection is closed"
        case .invalidArgument(let why): "invalid D-Bus argument: \(why)"
        case .unexpectedReply(let expected, let got): "unexpected D-Bus reply: expected \(expected), got \(got)"
        case .malformedMessage(let why): "malformed D-Bus message: \(why)"
        case .outOfMemory: "out of memory in libdbus"
        }
    }
}
