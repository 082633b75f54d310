import Basics
public import BluetoothKernel
import Logging
import Radio
import Synchronization

/// The monitor the scanner adds to the kernel itself in mgmt mode where
/// bluetoothd offers none (see `KernelMonitor`): the one that matches
/// nothing, added per controller scanned, removed when the scan stops or
/// moves. With a record, the handles are kept in a file, and the first add
/// of a process removes those a process of this boot left behind (killed
/// before it could remove them), so none piles up.
public final class KernelMonitors: Sendable {
    private let record: KernelMonitorRecord?
    private let bootID: String?
    private let state = Mutex(State())

    private struct State {
        var reclaimed = false
        var added: [KernelMonitor] = []
    }

    /// The monitor's patterns: `MonitorPattern.nothing`, which an advert
    /// cannot match; the kernel sends every advert on the channel anyway.
    static let patterns = [KernelMonitor.Pattern(adType: MonitorPattern.nothing.adType, offset: MonitorPattern.nothing.offset,
                                                 content: MonitorPattern.nothing.content)]

    public init(record: KernelMonitorRecord?) {
        self.record = record
        // Only a record needs it: every configuration read makes one of these.
        bootID = record == nil ? nil : KernelMonitorRecord.bootID
    }

    /// Monitors for a process that holds `CAP_NET_ADMIN`, which the kernel
    /// requires of the channel; nil for one that does not.
    public static func ifPermitted(record: KernelMonitorRecord?) -> KernelMonitors? {
        ProcessCapabilities.effective(contains: ProcessCapabilities.netAdmin) ? KernelMonitors(record: record) : nil
    }

    func add(controller: UInt16) async throws(ManagementSocketError) -> KernelMonitor {
        await reclaim()
        let monitor = try await KernelMonitor.add(controller: controller, patterns: Self.patterns)
        keep { $0.append(monitor) }
        return monitor
    }

    /// Removes `monitor`; one the kernel no longer has (its controller went
    /// away, taking its monitors) is only forgotten.
    func remove(_ monitor: KernelMonitor) async {
        do throws(ManagementSocketError) { try await monitor.remove() } catch {
            Log.info("scanner: the kernel's \(monitor) could not be removed (\(error)); it went with its controller if that went away")
        }
        keep { $0.removeAll { $0 == monitor } }
    }

    private func reclaim() async {
        guard let record, let bootID, state.withLock({ state in defer { state.reclaimed = true }; return !state.reclaimed }) else { return }
        for stale in record.monitors(bootID: bootID) {
            do throws(ManagementSocketError) {
                try await stale.remove()
                Log.notice("scanner: removed the kernel's \(stale), added by a Waymark that stopped without removing it")
            } catch {
                Log.info("scanner: the kernel's \(stale), named in \(record.path), is gone already (\(error))")
            }
        }
        keep { _ in }
    }

    private func keep(_ change: (inout [KernelMonitor]) -> Void) {
        let added = state.withLock { state in
            change(&state.added)
            return state.added
        }
        guard let record, let bootID else { return }
        do throws(DurableFileError) { try record.save(added, bootID: bootID) } catch {
            Log.warning("scanner: cannot keep the kernel monitors' handles in \(record.path) (\(error)); one left behind by a kill stays until reboot")
        }
    }
}
