internal import CQRencode

/// A QR code from libqrencode, drawn for a terminal: two modules per
/// character cell with half blocks, dark on light, with the 4-module quiet
/// zone scanners need.
public struct QRCode: Sendable {
    public let size: Int
    private let dark: [Bool]

    /// Encodes `text` (8-bit mode, error correction L); nil if it does not fit.
    public init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, WAYMARK_QR_ECLEVEL_L) else { return nil }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        dark = (0..<size * size).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return dark[row * size + column]
    }

    /// Lines of half-block characters. Light modules print as full blocks so
    /// the code reads on dark terminals too.
    public var terminalText: String {
        let quiet = 4
        var lines: [String] = []
        for top in stride(from: -quiet, to: size + quiet, by: 2) {
            var line = ""
            for column in -quiet..<(size + quiet) {
                switch (isDark(row: top, column: column), isDark(row: top + 1, column: column)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
