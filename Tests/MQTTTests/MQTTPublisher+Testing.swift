import MQTT
import Telemetry
import Upload

extension MQTTPublisher where C == ContinuousClock {
    /// The sink as the tests run it: topics under `waymark/DEVICE`, no
    /// discovery, a running gateway's state, real time.
    static func testing(_ settings: MQTTSettings, outbox: Outbox, device: String, batchCount: Int,
                        isAuthorized: @escaping @Sendable () async -> Bool = { true }) throws -> MQTTPublisher<ContinuousClock> {
        let options = Options(deviceID: device, topicPrefix: "waymark/" + device, batchCount: batchCount, batchBytes: 512 << 10, discovery: nil,
                              retryCap: .seconds(900))
        return try MQTTPublisher(settings: settings, outbox: outbox, options: options, labels: SensorLabels([]), clock: ContinuousClock(),
                                 isAuthorized: isAuthorized, state: { GatewayState(armed: true, running: true, trip: nil, queueDepth: 0, scanMode: nil) })
    }
}
