internal import FoundationEssentials
internal import Glibc

/// Facts about this build.
public enum Waymark {
    public static let version = "0.1.0"

    /// The version of the installed `waymark` package, from dpkg's status
    /// file; nil when Waymark was not installed from a package.
    public static func packageVersion(status path: String = "/var/lib/dpkg/status") -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        for stanza in String(decoding: data, as: UTF8.self).split(separator: "\n\n") {
            let lines = stanza.split(separator: "\n")
            guard lines.contains("Package: waymark"), lines.contains(where: { $0.hasPrefix("Status: ") && $0.hasSuffix(" installed") }) else { continue }
            return lines.first { $0.hasPrefix("Version: ") }.map { String($0.dropFirst("Version: ".count)) }
        }
        return nil
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
