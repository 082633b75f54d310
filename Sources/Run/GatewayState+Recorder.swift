import BlueZ
import CLI
import Daemon
import MQTT
import Radio
import Vocabulary

extension GatewayState {
    /// Armed, running, the trip, the scan mode and what the gateway runs, for the MQTT sink's state.
    init(of recorder: RecorderService) async {
        self.init(armed: await recorder.intent == .armed, running: await recorder.running, trip: await recorder.currentTrip, queueDepth: 0,
                  scanMode: await recorder.scanReception?.mode.rawValue)
        info = await recorder.gatewayInfo
    }
}
