internal import Location

/// Consecutive queued samples sent as one request.
public struct Batch: Sendable, Equatable {
    public var samples: [QueuedSample]

    public init(samples: [QueuedSample]) { self.samples = samples }

    public var firstSeq: Int64 { samples.first?.seq ?? 0 }
    public var lastSeq: Int64 { samples.last?.seq ?? 0 }

    /// `{device_id}:{first_seq}-{last_seq}`: the same samples always carry
    /// the same key, so a retry after a lost acknowledgement is recognised.
    public func idempotencyKey(deviceID: String) -> String { "\(deviceID):\(firstSeq)-\(lastSeq)" }

    /// The request body before compression.
    public func json(deviceID: String) -> [UInt8] {
        var text = #"{"device_id":"# + Self.quoted(deviceID) + #","samples":["#
        for (index, queued) in samples.enumerated() {
            if index > 0 { text += "," }
            text += Self.object(queued)
        }
        text += "]}"
        return Array(text.utf8)
    }

    /// One sample's JSON object: `seq`, `time`, `trip_id`, `kind`, then its fields.
    public static func object(_ queued: QueuedSample) -> String {
        let sample = queued.sample
        var text = #"{"seq":\#(queued.seq),"time":"\#(CivilTime.iso8601(sample.time))","trip_id":"#
        text += sample.tripID.map(quoted) ?? "null"
        text += #","kind":""# + sample.kind.rawValue + #"""#
        if !sample.fields.isEmpty { text += "," + sample.fields }
        return text + "}"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The two halves, for a 413.
    func split() -> (Batch, Batch) {
        let middle = samples.count / 2
        return (Batch(samples: Array(samples[..<middle])), Batch(samples: Array(samples[middle...])))
    }
}
