import Gateway
import Upload
/// The daemon's current uplink, which a reload may replace; the recorder
/// reaches it through this.
actor UplinkHolder {
    private(set) var current: Uplink?

    init(_ uplink: Uplink?) { current = uplink }

    func replace(with uplink: Uplink?) async {
        await current?.stop()
        current = uplink
        await uplink?.start()
    }

    func samplesCommitted(_ count: Int, _ urgency: UploadUrgency) async {
        guard let current else { return }
        await current.uploader.samplesAdded(count, waitForBatch: urgency == .batched)
        if urgency == .flush { await current.flush() }
    }
}
