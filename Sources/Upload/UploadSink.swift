/// Where queued samples go (`[Upload] Sinks`). Each sink keeps its own
/// cursor on the outbox; a sample leaves once every configured sink has it.
public enum UploadSink: String, Sendable, CaseIterable {
    /// The fleet backend's HTTP contract.
    case http
    /// An MQTT broker, acknowledged by PUBACK at QoS 1.
    case mqtt
}
