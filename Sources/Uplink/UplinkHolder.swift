import MQTT
package import Telemetry
import Upload

/// The daemon's current uplink, which a reload may replace; the recorder
/// reaches it through this.
package actor UplinkHolder {
    package private(set) var current: Uplink?
    /// Yields when `replace` installed another uplink.
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    package init(_ uplink: Uplink?) {
        current = uplink
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The first uplink, started later by `UplinkService`.
    package func install(_ uplink: Uplink?) { current = uplink }

    package func replace(with uplink: Uplink?) async {
        await current?.stop()
        current = uplink
        await uplink?.start()
        changed.yield()
    }

    /// Returns once `replace` installed another uplink, or the task is cancelled.
    nonisolated func waitForChange() async {
        for await _ in changes { return }
    }

    package func samplesCommitted(_ samples: [Sample], _ urgency: UploadUrgency) async {
        guard let current else { return }
        await current.uploader?.samplesAdded(samples.count, waitForBatch: urgency == .batched)
        await current.publisher?.samplesAdded(samples)
        if urgency == .flush { await current.flush() }
    }
}
