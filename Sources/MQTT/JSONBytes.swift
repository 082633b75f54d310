internal import FoundationEssentials

/// What the MQTT side publishes besides sample batches, as JSON with sorted
/// keys (so a retained message is byte-identical when nothing changed).
enum JSONBytes {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }
}
