import BlueZ
import Vocabulary

/// Every check `waymark doctor` makes: what it looks at, what a failure (or
/// a warning) means, and the fix it prints. The manual's troubleshooting
/// page is made from this table, so it names every check and every fix
/// doctor can print.
enum DoctorItem: String, CaseIterable {
    case systemBus = "bluetooth/system-bus"
    case bluetoothService = "bluetooth/bluetooth-service"
    case bluetoothAccess = "bluetooth/bluetooth-access"
    case bluetoothAdapter = "bluetooth/bluetooth-adapter"
    case rfkill = "bluetooth/rfkill"
    case adapterPowered = "bluetooth/adapter-powered"
    case bluetoothdVersion = "bluetooth/bluetoothd-version"
    case adapterBus = "bluetooth/adapter-bus"
    case advertisementMonitors = "bluetooth/advertisement-monitors"
    case scanMode = "bluetooth/scan-mode"
    case radioPowerCycle = "bluetooth/radio-power-cycle"
    case bluezCache = "bluetooth/bluez-cache"
    case locationReachable = "location/reachable"
    case locationDevice = "location/device"
    case locationFix = "location/fix"
    case storeWritable = "store/writable"
    case storePermissions = "store/permissions"
    case storeIntegrity = "store/integrity"
    case sessionAuthorized = "session/authorized"
    case sessionAccount = "session/account"
    case backend = "network/backend"
    case clock = "system/clock"
    case mqttBroker = "mqtt/broker"

    /// The fix for advertisement monitors: the drop-in that starts `bluetoothd` with `--experimental`.
    static func monitorsDropIn(bluetoothd program: String) -> String {
        let directory = "/etc/systemd/system/bluetooth.service.d"
        return "passive scanning keeps the controller's duplicate filter off and sends no scan requests; enable it with this drop-in: "
            + "sudo mkdir -p \(directory) && printf '[Service]\\nExecStart=\\nExecStart=\(program) --experimental\\n' "
            + "| sudo tee \(directory)/experimental.conf && sudo systemctl daemon-reload && sudo systemctl restart bluetooth"
    }

    var area: String { String(rawValue.prefix { $0 != "/" }) }
    var name: String { String(rawValue.drop { $0 != "/" }.dropFirst()) }

    /// The recording requirement a Bluetooth link is, if it is one.
    static func link(_ requirement: Requirement) -> DoctorItem? {
        switch requirement {
        case .systemBus: .systemBus
        case .bluetoothService: .bluetoothService
        case .bluetoothAccess: .bluetoothAccess
        case .bluetoothAdapter: .bluetoothAdapter
        case .adapterPowered: .adapterPowered
        case .location, .storage: nil
        }
    }

    /// What it looks at.
    var checks: String {
        switch self {
        case .systemBus: "the system D-Bus answers"
        case .bluetoothService: "something owns org.bluez on the bus and answers (bluetoothd)"
        case .bluetoothAccess: "the bus's policy lets this user talk to org.bluez"
        case .bluetoothAdapter: "the adapter `[Bluetooth] Adapter` names, or any adapter when it is empty, is there"
        case .rfkill: "no Bluetooth radio is blocked by rfkill"
        case .adapterPowered: "the adapter is powered"
        case .bluetoothdVersion: "bluetoothd's version, from its process"
        case .adapterBus: "whether the adapter sits on the Pi's UART, from sysfs"
        case .advertisementMonitors: "whether bluetoothd offers advertisement monitors (AdvertisementMonitorManager1)"
        case .scanMode: "the scan mode the running daemon uses, or the one `waymark run` would pick as this user, and why"
        case .radioPowerCycle: "whether the scan watchdog's recovery ladder ended without bringing adverts back"
        case .bluezCache: "the number of device files in BlueZ's cache (/var/lib/bluetooth/*/cache)"
        case .locationReachable: "the location source (`[Location] Source`) opens within 3 s"
        case .locationDevice: "gpsd has a receiver, or the NMEA device sends"
        case .locationFix: "the receiver has a fix within 3 s"
        case .storeWritable: "the data directory is a directory this user can write (never a symbolic link)"
        case .storePermissions: "the data directory is private (mode 0700)"
        case .storeIntegrity: "the store opens and passes `PRAGMA quick_check`"
        case .sessionAuthorized: "the persisted session is authorized: a usable refresh or access token, and no invalidation"
        case .sessionAccount: "the account (user, vehicle, API base URL) was fetched at login"
        case .backend: "the backend's base URL answers an HTTPS request within 5 s"
        case .clock: "the system clock reads a plausible year"
        case .mqttBroker: "with `[MQTT] Broker` set: `waymark mqtt test` (connect, read and publish the retained availability)"
        }
    }

    /// What a failure (or, for a check that only warns, a warning) means.
    var failsWhen: String {
        switch self {
        case .systemBus: "dbus-daemon is not running, or the process cannot reach /run/dbus/system_bus_socket"
        case .bluetoothService: "bluetoothd is not installed, not running, or so busy that it let the call time out (10 s)"
        case .bluetoothAccess: "the user is not allowed by /usr/share/dbus-1/system.d/io.waymark.Gateway1.conf or BlueZ's own policy"
        case .bluetoothAdapter: "no adapter is plugged in, the kernel has no driver for it, or `[Bluetooth] Adapter` names another"
        case .rfkill: "a Bluetooth radio is soft- or hard-blocked (airplane mode, a switch, a BIOS setting)"
        case .adapterPowered: "the adapter is off: blocked by rfkill, powered off by a user, or not yet up after a reset"
        case .bluetoothdVersion: "bluetoothd is older than Waymark supports, or org.bluez is served by another program"
        case .adapterBus: "(a warning) the adapter is the Pi's built-in one on a UART, which drops adverts under scan load with Wi-Fi on"
        case .advertisementMonitors:
            "(a warning, only for passive or active mode) bluetoothd keeps advertisement monitors behind --experimental; mgmt and auto do not need them"
        case .scanMode: "(a warning) the mode is not mgmt: each advert then costs bluetoothd and D-Bus work, usually for want of CAP_NET_ADMIN"
        case .radioPowerCycle: "the radio heard nothing after every recovery step; some chips come back only from a real power cycle"
        case .bluezCache: "(a warning) over 5,000 files: bluetoothd never removes them, and years of car parks can use up a filesystem's inodes"
        case .locationReachable: "gpsd is not running or listens elsewhere, or the NMEA device is missing or not readable"
        case .locationDevice: "gpsd runs without a receiver (unplugged, or udev did not tell it), or the device is silent"
        case .locationFix: "the antenna has no view of the sky, or the receiver is still starting (a cold start takes minutes)"
        case .storeWritable: "the directory is missing its parent, read-only, someone else's, not a directory, or a symbolic link"
        case .storePermissions: "other users can reach the directory; Waymark refuses it rather than narrowing it behind the user's back"
        case .storeIntegrity: "the store is damaged, from a newer Waymark, or refused (owner, symbolic link)"
        case .sessionAuthorized: "nobody logged in, or the session was logged out, refused at refresh, revoked, locked or wiped"
        case .sessionAccount: "the login did not finish fetching the account, or the stored account no longer reads (uploads then wait)"
        case .backend: "no BaseURL, no network, DNS, a captive portal, or a certificate the system's CAs and `[Session] CAFile` do not trust"
        case .clock: "the Pi has no RTC, and NTP has not set the clock yet"
        case .mqttBroker: "the broker is unreachable, refuses the credentials or the certificate, or its ACL refuses the topic"
        }
    }

    /// The fix doctor prints (some checks print a more precise one, naming the path or the owner).
    var fix: String {
        switch self {
        case .systemBus: Requirement.systemBus.hint
        case .bluetoothService: Requirement.bluetoothService.hint
        case .bluetoothAccess: Requirement.bluetoothAccess.hint
        case .bluetoothAdapter: Requirement.bluetoothAdapter.hint
        case .rfkill: "rfkill unblock bluetooth"
        case .adapterPowered: Requirement.adapterPowered.hint
        case .bluetoothdVersion: "upgrade bluez to \(BluetoothService.oldestSupported.map(String.init).joined(separator: ".")) or newer; waymark is tested with 5.66 and 5.82"
        case .adapterBus: "plug in a USB adapter and set [Bluetooth] Adapter (or leave it empty: a USB adapter is preferred)"
        case .advertisementMonitors: Self.monitorsDropIn(bluetoothd: "/usr/libexec/bluetooth/bluetoothd")
        case .scanMode:
            "mgmt mode reads every advert from the kernel, without bluetoothd's and D-Bus's cost per advert: give the daemon CAP_NET_ADMIN, as the unit does"
        case .radioPowerCycle: "power the gateway off and on (in a car, an ignition cycle); if it happens again, use a USB Bluetooth adapter"
        case .bluezCache: "remove what was not written for 30 days, as the package's daily tmpfiles clean does: sudo systemd-tmpfiles --clean"
        case .locationReachable: Requirement.location.hint
        case .locationDevice: "plug in the receiver; check dmesg and /dev/waymark-gps"
        case .locationFix: "give the antenna a view of the sky"
        case .storeWritable: "chmod 700 the data directory, or run doctor as the store's owner: sudo -u waymark waymark doctor"
        case .storePermissions: "chmod 700 the data directory"
        case .storeIntegrity: "waymark start moves a damaged store aside (kept as waymark.db.corrupt-…) and starts an empty one"
        case .sessionAuthorized: "waymark login"
        case .sessionAccount: "waymark login (fetches the account)"
        case .backend: "check the network, DNS, [Backend] BaseURL and [Session] CAFile"
        case .clock: "wait for NTP (timedatectl), or add an RTC; trip times depend on it"
        case .mqttBroker: "the line doctor prints names the problem and its fix (CAFile, CertFile and KeyFile, the password, the broker's ACL)"
        }
    }
}

extension DoctorItem {
    /// The manual's troubleshooting reference (docs/troubleshooting.md): every check, by area, in doctor's order.
    static func markdown() -> String {
        var text = "", area = ""
        for item in allCases {
            if item.area != area {
                area = item.area
                text += "### \(area)\n\n"
            }
            text += "#### `\(item.rawValue)`\n\n- **Checks:** \(item.checks).\n- **Fails when:** \(item.failsWhen).\n- **Fix:** \(item.fix)\n\n"
        }
        return text
    }
}
