package import Session
package import Vocabulary

/// Why the daemon's controller should look again: every input that can
/// change what the recorder and the uplink should do.
package enum DaemonWake: Sendable {
    case reload
    case bluetoothChanged
    case flush
    case intent(RecordingIntent)
    case locationChanged
    case sleep(Bool)
    case session(AuthorizationEvent)
}
