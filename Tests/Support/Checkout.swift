public import Foundation

/// Files of this checkout the tests read: the shipped unit, rules and
/// policy, the VM scripts, the sources themselves.
public enum Checkout {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
