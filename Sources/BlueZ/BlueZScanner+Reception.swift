public import Bluetooth
import DBus

extension BlueZScanner {
    /// The mode the options ask for, given what the process may do.
    func choose() -> (ScanReception, ManagementSocket?) {
        Self.choose(options.mode, managementChannel: options.managementChannel)
    }

    /// What `mode` comes to on this system, with the management socket when
    /// that is the choice (`doctor` asks without scanning).
    public static func choose(
        _ mode: ScanMode, managementChannel: () throws(ManagementSocketError) -> ManagementSocket
    ) -> (ScanReception, ManagementSocket?) {
        switch mode {
        case .active:
            return (ScanReception(mode: .active, reason: "ScanMode = active"), nil)
        case .mgmt, .auto:
            let asked = "ScanMode = \(mode.rawValue)"
            do {
                let socket = try managementChannel()
                return (ScanReception(mode: .mgmt, reason: asked + ": the kernel's management channel is readable (CAP_NET_ADMIN)"), socket)
            } catch {
                return (ScanReception(mode: .active, reason: asked + ", but \(error); adverts come over D-Bus"), nil)
            }
        }
    }

    /// Switches advert reception to `choice`, the new path first so that
    /// nothing falls between the two.
    func receive(_ choice: (ScanReception, ManagementSocket?)) async {
        let (new, socket) = choice
        if let socket {
            let feed = ManagementFeed(socket: socket, table: devices, tick: ticker, deliver: deliver)
            feed.follow(adapterPath: adapterPath)
            let control = controlSink
            feed.start { control?.yield(.managementFailed($0)) }
            management?.cancel()
            management = feed
            adverts.value = false
            deviceUpdates?.cancel()
            deviceUpdates = nil
        } else {
            if deviceUpdates == nil {
                let table = devices, sink = deliver, tick = ticker
                deviceUpdates = try? await connection.subscribe(Self.propertiesChanged(of: "org.bluez.Device1")) { message in
                    guard let path = message.path else { return }
                    message.withArguments { reader in
                        _ = reader.string()
                        // Read in place: this runs for every advert.
                        if let sighting = table.update(path, with: &reader, at: tick()) { sink(sighting) }
                    }
                }
            }
            adverts.value = true
            management?.cancel()
            management = nil
        }
        guard new != reception else { return }
        let previous = reception
        reception = new
        report(.reception(new, previous: previous?.mode))
    }

    /// The management channel broke while running: adverts come over D-Bus
    /// from now on; scanning never stops for it.
    func managementFailed(errno: Int32) async {
        guard reception?.mode == .mgmt else { return }
        let why = errno == 0 ? "closed" : "failed with errno \(errno)"
        await receive((ScanReception(mode: .active, reason: "the management channel \(why) while running; adverts come over D-Bus"), nil))
    }

    /// After bluetoothd or an adapter returns: a mode lost earlier is tried again.
    func retryPreferredMode() async {
        guard options.mode != .active, reception?.mode == .active else { return }
        let choice = choose()
        if choice.1 != nil { await receive(choice) }
    }

    /// Management events that were not well-formed, since start.
    public var malformedManagementEvents: Int { management?.malformed ?? 0 }
}
