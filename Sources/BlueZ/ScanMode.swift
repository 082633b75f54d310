/// How the scanner hears adverts.
///
/// The controller's duplicate filter is the reason there is a choice: for an
/// ordinary discovery the kernel keeps it on, so an unchanged advert is
/// reported about once per scan, however long its sender stays in range.
public enum ScanMode: String, Sendable, CaseIterable {
    /// Pick the best the system allows: `mgmt`, else `active`.
    case auto
    /// BlueZ discovery, stopped and started again every `ScannerOptions.cycle`
    /// to clear the controller's duplicate list; adverts come over D-Bus.
    case active
    /// Discovery cycled as for `active`, but adverts are read straight from
    /// the kernel's management channel (needs `CAP_NET_ADMIN`): every advert
    /// the controller passes, without bluetoothd's and D-Bus's cost per advert.
    case mgmt
}
