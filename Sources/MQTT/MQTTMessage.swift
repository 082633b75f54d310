/// One message to publish.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool

    public init(_ topic: String, _ payload: [UInt8], retain: Bool = false) {
        (self.topic, self.payload, self.retain) = (topic, payload, retain)
    }

    public init(_ topic: String, _ text: String, retain: Bool = false) {
        self.init(topic, Array(text.utf8), retain: retain)
    }
}
