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
