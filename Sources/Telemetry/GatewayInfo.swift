internal import Basics

/// What a gateway runs, for the fleet: sent as a `gateway_info` sample at
/// start and whenever it changes, and in MQTT's retained `state`.
public struct GatewayInfo: Sendable, Equatable, Encodable {
    /// Waymark's own version.
    public var version: String
    /// The Debian package's version, when Waymark was installed from one
    /// (the package records it in `/usr/lib/waymark/package-version`).
    public var packageVersion: String?
    /// The machine (`aarch64`, `x86_64`) and the kernel's release.
    public var architecture: String
    public var kernel: String
    /// bluetoothd's version, when it runs.
    public var bluezVersion: String?
    /// `mgmt`, `passive` or `active` while scanning.
    public var scanMode: String?

    public init(version: String, packageVersion: String?, architecture: String, kernel: String, bluezVersion: String?, scanMode: String?) {
        (self.version, self.packageVersion, self.architecture, self.kernel) = (version, packageVersion, architecture, kernel)
        (self.bluezVersion, self.scanMode) = (bluezVersion, scanMode)
    }

    /// The wire's names and values, in order.
    public var fields: KeyValuePairs<String, String?> {
        ["version": version, "package_version": packageVersion, "architecture": architecture, "kernel": kernel,
         "bluez_version": bluezVersion, "scan_mode": scanMode]
    }

    /// Every key always, null when unknown.
    public func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: NamedKey.self)
        for (name, value) in fields { try keys.encode(value, forKey: NamedKey(name)) }
    }
}
