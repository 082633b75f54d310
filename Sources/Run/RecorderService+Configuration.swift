package import Basics
package import BlueZ
import CLI
import Command
package import Config
package import Daemon
package import Radio
package import Recorder
package import Store
package import Telemetry
import Upload
package import Vocabulary

extension RecorderSettings {
    /// The recorder's part of a configuration (the one in force).
    package init(_ configuration: Configuration) {
        let recording = configuration.recording
        self.init(gapThreshold: recording.gapThreshold.seconds, trips: recording.tripOptions, samples: recording.sampleOptions,
                  scanner: configuration.bluetooth.scannerOptions(cycle: recording.scanCycle))
    }
}

extension RecorderService {
    /// The recorder as `waymark run` builds it: with the settings of
    /// `configuration`, reporting what this gateway runs.
    package static func make(
        store: GatewayStore, configuration: Configuration, scanner: ScannerService, clock: any SystemClock = KernelClock(), capture: CaptureTap? = nil,
        isAuthorized: @escaping @Sendable () async -> Bool, samplesCommitted: @escaping @Sendable ([Sample], UploadUrgency) async -> Void,
        announced: @escaping @Sendable (Event) -> Void = { _ in }, overheard: (@Sendable (Sighting) -> Void)? = nil
    ) -> RecorderService {
        let system = Waymark.system
        let info = GatewayInfo(version: Waymark.version, packageVersion: Waymark.packageVersion(), architecture: system.machine,
                               kernel: system.kernel, bluezVersion: nil, scanMode: nil)
        return RecorderService(store: store, settings: RecorderSettings(configuration), scanner: scanner, info: info, clock: clock, capture: capture,
                               isAuthorized: isAuthorized, samplesCommitted: samplesCommitted, announced: announced, overheard: overheard)
    }
}
