import Basics
import Capture
import Logging
import Radio
import Recorder
import Recording
package import Telemetry
import Vocabulary

/// What the scanner reports besides sightings: logged, announced, and
/// counted for the radio's health reports.
extension RecorderService {
    /// The scan mode, logged when chosen; a mode lost while running (or
    /// regained when bluetoothd or the adapter returns) is recorded like a
    /// lost requirement, though scanning goes on.
    func scannerReported(_ event: ScannerEvent) async {
        switch event {
        case .discoveryStarted(let adapter, let reason):
            if reason.isRestart { health.restarted() }
            health.follow(adapter: adapter)
        case .watchdogFired(let step):
            health.stepped(step.rawValue)
            guard step == .needsPowerCycle else { return Log.warning("recording: no adverts for the watchdog period; recovery step: \(step.rawValue)") }
            Log.error("recording: no adverts after every recovery step: the radio needs a power cycle (an ignition cycle in a car); still retrying")
            await announce(Event(.radioNeedsPowerCycle))
        case .recoveryFailed(let step, let reason):
            Log.warning("recording: recovery step \(step.rawValue) failed: \(reason)")
        case .radioRecovered:
            Log.notice("recording: adverts are back; the radio recovered")
            await announce(Event(.radioRecovered))
        case .adapterFailover(let from, let to):
            Log.warning("recording: scanning moved from \(from) to \(to): \(from) was removed or powered off and did not come back")
            await announce(Event(.adapterFailover, [.from: from.rawValue, .to: to.rawValue]))
        case .startFailed(let reason, let failures, let wait):
            // The first failure and every fifth are logged and announced: a radio that stays refused is not a log line a minute.
            let text = "recording: scanning did not start (\(failures) in a row): \(reason); trying again in \(wait)"
            guard failures == 1 || failures % 5 == 0 else { return Log.info(text) }
            Log.error(text)
            await announce(Event(.scanStartFailed, [.reason: reason, .failures: String(failures), .seconds: String(wait.components.seconds)]))
        case .startRecovered(let failures):
            Log.notice("recording: scanning started after \(failures) failed starts")
            await announce(Event(.scanStarted, [.failures: String(failures)]))
        case .state(let state) where state != .scanning && state != .starting:
            health.follow(adapter: nil)
        case .reception(let reception, let previous):
            health.follow(mode: reception.mode.rawValue)
            gatewayInfo.scanMode = reception.mode.rawValue
            await sendGatewayInfoIfChanged()
            await reportReception(reception, previous: previous)
        default:
            break
        }
    }

    func reportReception(_ reception: ScanReception, previous: ScanMode?) async {
        guard let previous else { return Log.notice("recording: scanning in \(reception.mode.rawValue) mode (\(reception.reason))") }
        Log.warning("recording: scan mode changed from \(previous.rawValue) to \(reception.mode.rawValue) while running (\(reception.reason))")
        await announce(Event(.scanModeChanged, [.from: previous.rawValue, .to: reception.mode.rawValue, .reason: reception.reason]))
    }

    /// Takes the health report for the last `seconds` and hands it to
    /// `run`, in the capture's order, to be recorded as a `radio_health`
    /// sample, uploaded with the others, trip or no trip.
    func recordHealth(seconds: Double) {
        // Captured, counted and sampled at one reading, as replay does it.
        let reading = stamper.clock.read()
        let input = input
        _ = health.report(seconds: seconds, pairings: pairings, at: reading) { input.yield(.health($0, at: reading.boot)) }
        healthSince = reading.boot
    }

    /// Records a health report as a sample, after the deadlines due before it.
    func commitHealth(_ report: RadioHealth, at boot: Double) async {
        await handle(.reached(boot))
        let heard = report.scanning.map { "\($0.adapter) \($0.mode) \($0.advertsPerMinute)/min" }.joined(separator: ", ")
        Log.info("radio: \(heard.isEmpty ? "not scanning" : heard); \(report.paired.filter(\.seen).count) of \(report.paired.count) paired seen")
        // Outside a trip nothing else is on its way: the report goes out on
        // this wake-up rather than on a batch timer's.
        await commit([RecordedSample(time: boot, tripID: currentTrip, payload: .radioHealth(report))], urgency: currentTrip == nil ? .routine : .batched)
    }

    /// The current health interval so far, for `waymark radio`.
    package var healthSoFar: RadioHealth {
        return health.report(seconds: now - healthSince, pairings: pairings, reset: false)
    }
}

extension RecorderService {
    /// bluetoothd's version, looked up at start and when it comes or goes;
    /// what the gateway runs is sent if that changed.
    package func bluez(version: String?) async {
        gatewayInfo.bluezVersion = version
        // At start the scanner has chosen its mode by now, if armed: one sample, not two.
        if let mode = await scanReception?.mode.rawValue { gatewayInfo.scanMode = mode }
        await sendGatewayInfoIfChanged()
    }

    /// A `gateway_info` sample at start, and whenever what the gateway runs changed.
    func sendGatewayInfoIfChanged() async {
        guard gatewayInfo != gatewayInfoSent else { return }
        gatewayInfoSent = gatewayInfo
        await commit([RecordedSample(time: now, tripID: currentTrip, payload: .gatewayInfo(gatewayInfo))])
    }
}
