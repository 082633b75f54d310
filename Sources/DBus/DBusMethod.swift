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

    /// A handler that throws `DBusError.remote` answers with that error name;
    /// any other error answers `org.freedesktop.DBus.Error.Failed`.
    public init(_ name: String, input: String = "", output: String = "", handler: @escaping Handler) {
        self.name = name
        self.input = input
        self.output = output
        self.handler = handler
    }

    /// A method handled on the connection's loop (see `onLoop`): it must be
    /// quick and must not block.
    public init(_ name: String, input: String, onLoop: @escaping @Sendable (DBusMessage) -> Void) {
        self.init(name, input: input, handler: { _ in [] })
        self.onLoop = onLoop
    }
}
