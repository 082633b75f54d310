internal import Basics
internal import Telemetry
import Vocabulary

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
    /// With `seqRange`, the batch's first and last sequence numbers too, so
    /// a subscriber that gets a batch twice (MQTT is at least once) can tell.
    public func json(deviceID: String, seqRange: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.reduce(96) { $0 + $1.bytes })
        bytes += #"{"device_id":"#.utf8
        JSONText.appendQuoted(deviceID, to: &bytes)
        if seqRange { bytes += #","first_seq":\#(firstSeq),"last_seq":\#(lastSeq)"#.utf8 }
        bytes += #","samples":["#.utf8
        for (index, queued) in samples.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.append(queued, to: &bytes)
        }
        bytes += "]}".utf8
        return bytes
    }

    /// One sample's JSON object: `seq`, `time`, `trip_id`, `kind`, then its fields.
    public static func object(_ queued: QueuedSample) -> String {
        var bytes: [UInt8] = []
        append(queued, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What one sample adds to a request body: its object, with room for
    /// the separator. The size cap and batch limits count this.
    /// Counted, not written: committing a sample costs no second encoding.
    static func size(of queued: QueuedSample) -> Int {
        let frame = #"{"seq":,"time":"","trip_id":,"time_source":"","kind":""}"#.utf8.count
        var seqDigits = 1
        var rest = queued.seq.magnitude / 10
        while rest > 0 {
            seqDigits += 1
            rest /= 10
        }
        let trip = queued.tripID.map { JSONText.quotedCount($0.rawValue) } ?? "null".utf8.count
        let fields = queued.fields.isEmpty ? 0 : queued.fields.utf8.count + 1
        // The time is always 24 characters (`CivilTime.appendISO8601`).
        return frame + (queued.seq < 0 ? 1 : 0) + seqDigits + 24 + trip + queued.timeSource.rawValue.utf8.count
            + queued.kind.rawValue.utf8.count + fields + 8
    }

    static func append(_ queued: QueuedSample, to bytes: inout [UInt8]) {
        let sample = queued
        bytes += #"{"seq":"#.utf8
        if queued.seq >= 0 { DecimalText.append(Int(queued.seq), to: &bytes) } else { bytes += String(queued.seq).utf8 }
        bytes += #","time":""#.utf8
        CivilTime.appendISO8601(sample.time, to: &bytes)
        bytes += #"","trip_id":"#.utf8
        if let trip = sample.tripID { JSONText.appendQuoted(trip.rawValue, to: &bytes) } else { bytes += "null".utf8 }
        bytes += #","time_source":""#.utf8
        bytes += sample.timeSource.rawValue.utf8
        bytes += #"","kind":""#.utf8
        bytes += sample.kind.rawValue.utf8
        bytes.append(UInt8(ascii: "\""))
        if !sample.fields.isEmpty {
            bytes.append(UInt8(ascii: ","))
            JSONText.appendRaw(sample.fields, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The two halves, for a 413.
    func split() -> (Batch, Batch) {
        let middle = samples.count / 2
        return (Batch(samples: Array(samples[..<middle])), Batch(samples: Array(samples[middle...])))
    }
}
