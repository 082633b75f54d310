/// An object this process exports on the bus: interfaces with methods,
/// properties and signals. `org.freedesktop.DBus.Properties` and
/// `org.freedesktop.DBus.Introspectable` are answered for it.
public struct DBusObject: Sendable {
    public var interfaces: [DBusInterface]

    public init(_ interfaces: [DBusInterface]) { self.interfaces = interfaces }

    func interface(named name: String) -> DBusInterface? {
        interfaces.first { $0.name == name }
    }
}

public struct DBusInterface: Sendable {
    public var name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignal]

    public init(_ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [], signals: [DBusSignal] = []) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }
}

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

public struct DBusProperty: Sendable {
    public var name: String
    public var signature: String
    public var get: @Sendable () async -> DBusValue
    /// nil for a read-only property.
    public var set: (@Sendable (DBusValue) async throws -> Void)?

    public init(
        _ name: String, signature: String,
        get: @escaping @Sendable () async -> DBusValue,
        set: (@Sendable (DBusValue) async throws -> Void)? = nil
    ) {
        self.name = name
        self.signature = signature
        self.get = get
        self.set = set
    }
}

public struct DBusSignal: Sendable {
    public var name: String
    public var signature: String

    public init(_ name: String, signature: String = "") {
        self.name = name
        self.signature = signature
    }
}
