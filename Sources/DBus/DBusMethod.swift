public struct DBusMethod: Sendable {
    public typealias Handler = @Sendable ([DBusValue]) async throws -> [DBusValue]

    public var name: String
    /// Signature of the arguments; a call with any other is refused with `InvalidArgs`.
    public var input: String
    public var output: String
    public var handler: Handler
    /// Set for a method handled on the connection's loop, in order with the
    /// signals around it and without a task: a notification sent per event
    /// (a monitor's `DeviceFound`). It gets the call itself; a caller that
    /// wants a reply gets an empty one.
    public var onLoop: (@Sendable (DBusMessage) -> Void)?
    /// Set for a method that answers according to who calls: it gets the
    /// caller's unique bus name (`:1.42`) with the arguments.
    public var callerHandler: (@Sendable (_ caller: String, [DBusValue]) async throws -> [DBusValue])?

    /// A handler that throws `DBusError.remote` answers with that error name;
    /// any other error answers `org.freedesktop.DBus.Error.Failed`.
    public init(_ name: String, input: String = "", output: String = "", handler: @escaping Handler) {
        self.name = name
        self.input = input
        self.output = output
        self.handler = handler
    }

    /// A method whose handler gets the caller's unique name (see `callerHandler`).
    public init(_ name: String, input: String = "", output: String = "", caller: @escaping @Sendable (String, [DBusValue]) async throws -> [DBusValue]) {
        self.init(name, input: input, output: output, handler: { _ in [] })
        self.callerHandler = caller
    }

    /// A method handled on the connection's loop (see `onLoop`): it must be
    /// quick and must not block.
    public init(_ name: String, input: String, onLoop: @escaping @Sendable (DBusMessage) -> Void) {
        self.init(name, input: input, handler: { _ in [] })
        self.onLoop = onLoop
    }
}
