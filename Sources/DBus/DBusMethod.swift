public struct DBusMethod: Sendable {
    public typealias Handler = @Sendable ([DBusValue]) async throws -> [DBusValue]

    public var name: String
    /// Signature of the arguments; a call with any other is refused with `InvalidArgs`.
    public var input: String
    public var output: String
    public var handler: Handler

    /// A handler that throws `DBusError.remote` answers with that error name;
    /// any other error answers `org.freedesktop.DBus.Error.Failed`.
    public init(_ name: String, input: String = "", output: String = "", handler: @escaping Handler) {
        self.name = name
        self.input = input
        self.output = output
        self.handler = handler
    }
}
