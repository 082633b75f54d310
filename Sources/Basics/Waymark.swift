internal import FoundationEssentials
internal import Glibc

/// Facts about this build.
public enum Waymark {
    public static let version = "0.1.0"
    /// The configuration file, unless `--config` names another.
    public static let defaultConfigPath = "/etc/waymark/waymark.conf"

    /// Where the Debian package records its own version (`hardware/debian/package.sh`).
    public static let packageVersionFile = "/usr/lib/waymark/package-version"

    /// The installed package's version; nil when Waymark was not installed
    /// from a package, or the file holds anything but one short line.
    public static func packageVersion(file path: String = packageVersionFile) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 256 else { return nil }
        let version = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        guard !version.isEmpty, version.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return version
    }

    /// The machine (`aarch64`) and the kernel's release, from uname(2).
    public static var system: (machine: String, kernel: String) {
        var names = utsname()
        uname(&names)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return (text(names.machine), text(names.release))
    }
}
