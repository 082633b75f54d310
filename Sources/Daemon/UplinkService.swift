import Lifecycle

/// The session and the upload queue (see `Uplink`), first up at launch so
/// that what a crash left pending is flushed once authenticated; a reload
/// may replace the uplink inside the holder.
struct UplinkService: Service {
    let name = "uplink"
    let holder: UplinkHolder

    func start() async {
        await holder.current?.start()
    }

    func run() async {
        await waitUntilCancelled()
        await holder.current?.stop()
    }
}
