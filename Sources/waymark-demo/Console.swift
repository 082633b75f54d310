import Foundation

/// Unbuffered output, so that a pipe shows the drive as it happens.
enum Console {
    static func show(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
