import Lifecycle

/// The session and the upload queue (see `Uplink`), first up at launch so
/// that what a crash left pending is flushed once authenticated. Its `run`
/// runs the current uplink's loops; a reload that replaces the uplink stops
/// them, and the new one's run here in turn.
package struct UplinkService: Service {
    package let name = "uplink"
    let holder: UplinkHolder

    package init(holder: UplinkHolder) { self.holder = holder }

    package func start() async {
        await holder.current?.start()
    }

    package func run() async {
        var running: Uplink?
        while !Task.isCancelled {
            let current = await holder.current
            if let current, current !== running {
                running = current
                await current.run()
            } else {
                await holder.waitForChange()
            }
        }
        await holder.current?.stop()
    }
}
