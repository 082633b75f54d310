/// A Bluetooth adapter as the kernel and BlueZ name it, `hci0`: the last
/// part of its BlueZ object path (`/org/bluez/hci0`).
public struct AdapterName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral name: String) { rawValue = name }

    /// `/org/bluez/hci0` → `hci0`.
    public init(path: String) { rawValue = String(path.split(separator: "/").last ?? Substring(path)) }

    /// The kernel's controller index that BlueZ named the adapter after
    /// (`hci3` → 3), for the management channel; nil for any other name.
    public var controllerIndex: UInt16? { rawValue.hasPrefix("hci") ? UInt16(rawValue.dropFirst(3)) : nil }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
