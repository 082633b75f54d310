/// A D-Bus error name such as `org.freedesktop.DBus.Error.ServiceUnknown`.
public struct DBusErrorName: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static let failed: DBusErrorName = "org.freedesktop.DBus.Error.Failed"
    public static let serviceUnknown: DBusErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner: DBusErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let accessDenied: DBusErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    public static let noReply: DBusErrorName = "org.freedesktop.DBus.Error.NoReply"
    public static let timeout: DBusErrorName = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnected: DBusErrorName = "org.freedesktop.DBus.Error.Disconnected"
    public static let unknownMethod: DBusErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject: DBusErrorName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface: DBusErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty: DBusErrorName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly: DBusErrorName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let invalidArgs: DBusErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let limitsExceeded: DBusErrorName = "org.freedesktop.DBus.Error.LimitsExceeded"
    public static let fileNotFound: DBusErrorName = "org.freedesktop.DBus.Error.FileNotFound"
}
