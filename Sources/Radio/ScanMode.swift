/// How the scanner hears adverts.
///
/// The controller's duplicate filter is the reason there is a choice: for an
/// ordinary discovery the kernel keeps it on, so an unchanged advert is
/// reported about once per scan, however long its sender stays in range.
/// While an advertisement monitor is registered, the kernel scans passively
/// with the filter off instead.
public enum ScanMode: String, Sendable, CaseIterable {
    /// Pick the best the system allows: `mgmt`, else `passive`, else `active`.
    case auto
    /// An advertisement monitor registered with bluetoothd
    /// (`AdvertisementMonitorManager1`, behind `bluetoothd --experimental` in
    /// BlueZ 5.66): the kernel scans passively with the duplicate filter off
    /// and bluetoothd calls `DeviceFound` for every advert that matches the
    /// monitor's patterns. No scan requests are sent, which spares the tags'
    /// batteries.
    case passive
    /// BlueZ discovery, stopped and started again every `ScannerOptions.cycle`
    /// to clear the controller's duplicate list; adverts come over D-Bus.
    case active
    /// Adverts read straight from the kernel's management channel (needs
    /// `CAP_NET_ADMIN`): every advert the controller passes, without
    /// bluetoothd's and D-Bus's cost per advert. The scan runs under an
    /// advertisement monitor where bluetoothd offers one, else as cycled
    /// discovery.
    case mgmt
}
