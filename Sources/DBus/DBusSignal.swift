public struct DBusSignal: Sendable {
    public var name: String
    public var signature: String

    public init(_ name: String, signature: String = "") {
        self.name = name
        self.signature = signature
    }
}
