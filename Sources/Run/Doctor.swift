import Basics
import BlueZ
import BluetoothKernel
import CLI
import Command
import Config
import Control
import DBus
import FoundationEssentials
internal import Glibc
import HTTP
import Location
import Logging
import Radio
import Session
import Storage
import Store
import Vocabulary

/// `waymark doctor [--json]`: every requirement checked, with a fix for each
/// failure. Exit 0 when everything passes, 1 otherwise.
enum Doctor {
    static let specs: [CommandSpec] = [
        CommandSpec(name: "doctor", summary: "Check Bluetooth, location, store, session, clock and network, with a fix for each failure.",
                    details: "The checks form a tree: one that needs a check that failed is not judged, and shows as skipped, so one cause gives one failure and one fix. --json gives each check's status (ok, warn, fail, skipped) and needs. Exit 0 when all pass, 1 otherwise.",
                    options: [OptionSpec(name: "--json", help: "one JSON object")], run: run),
    ]

    typealias Check = DoctorCheck

    static func run(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        // The probes' own log lines would only repeat, ahead of the report, what the checks say.
        Log.threshold = .error
        var checks: [Check] = []
        checks += await bluetooth(configuration)
        checks += await location(configuration)
        checks += store(invocation)
        checks.append(radio(invocation))
        checks.append(bluezCache())
        checks += await session(configuration, invocation)
        checks.append(clock())
        if let check = await mqtt(configuration, invocation) { checks.append(check) }
        let tree = Check.tree(checks)
        if invocation.flag("--json") {
            JSONEncoder.snakeCase.printLine(["checks": tree])
        } else {
            tree.forEach { print($0.text) }
        }
        return tree.allSatisfy(\.passed) ? .ok : .failure
    }

    /// BlueZ's chain (bus, service, access, adapter, power) as the scanner
    /// probes it: it stops at the first missing link, so the links after it
    /// are not judged. An rfkill block is the cause of a powered-off adapter.
    private static func bluetooth(_ configuration: Configuration) async -> [Check] {
        let bus = try? await DBusConnection.system()
        defer { bus?.close() }
        let missing = await BluetoothProbe(adapter: configuration.bluetooth.adapter).missing(on: bus)
        func link(_ item: DoctorItem, _ requirement: Requirement, needs: [DoctorItem]) -> Check {
            Check(item, ok: !missing.contains(requirement), detail: missing.contains(requirement) ? "missing" : "present", needs: needs)
        }
        let blocked = Rfkill.blocked().map(\.name)
        var checks = [
            link(.systemBus, .systemBus, needs: []),
            link(.bluetoothService, .bluetoothService, needs: [.systemBus]),
            link(.bluetoothAccess, .bluetoothAccess, needs: [.bluetoothService]),
            link(.bluetoothAdapter, .bluetoothAdapter, needs: [.bluetoothAccess]),
            Check(.rfkill, ok: blocked.isEmpty, detail: blocked.isEmpty ? "not blocked" : "blocked: " + blocked.joined(separator: ", ")),
            link(.adapterPowered, .adapterPowered, needs: [.bluetoothAdapter, .rfkill]),
        ]
        var bluetoothd: BluetoothService?
        if let bus { bluetoothd = await BluetoothService.find(on: bus) }
        if let bluetoothd {
            checks.append(Check(
                .bluetoothdVersion, ok: !bluetoothd.isBluetoothd || bluetoothd.isSupported,
                detail: bluetoothd.isBluetoothd ? "bluetoothd \(bluetoothd.version ?? "of unknown version") (pid \(bluetoothd.pid))"
                    : "org.bluez is served by \(bluetoothd.program) (pid \(bluetoothd.pid)), not bluetoothd",
                needs: [.bluetoothService]))
        } else {
            checks.append(Check(.bluetoothdVersion, ok: true, detail: "the owner of org.bluez did not say who it is", warning: true, needs: [.bluetoothService]))
        }
        if let attached = AdapterBus.find(configuration.bluetooth.adapter ?? "") {
            checks.append(Check(
                .adapterBus, ok: true,
                detail: "\(attached.adapter) \(attached.onUART ? "is on a UART" : "is not on a UART")\(attached.driver.map { " (driver \($0))" } ?? "")",
                warning: attached.onUART))
        }
        var monitors = false
        if let bus { monitors = await BlueZScanner<ContinuousClock>.monitorsOffered(on: bus, adapter: configuration.bluetooth.adapter) }
        var offer = advertisementMonitors(offered: monitors, bluetoothd: bluetoothd, mode: configuration.bluetooth.scanMode)
        offer.needs = [DoctorItem.bluetoothAdapter.rawValue]
        var running: (mode: String, reason: String)?
        if let bus, let reception = await ControlInterface.reception(on: bus) { running = (reception.mode, reception.reason) }
        var mode = scanMode(configuration.bluetooth.scanMode, monitorsOffered: monitors, running: running)
        mode.needs = [DoctorItem.bluetoothAdapter.rawValue]
        return checks + [offer, mode]
    }

    /// Whether passive scanning is possible; if not, what mgmt mode does
    /// instead, or (for a mode that needs bluetoothd's monitors) the drop-in
    /// that offers them.
    private static func advertisementMonitors(offered: Bool, bluetoothd: BluetoothService?, mode: ScanMode) -> Check {
        let program = bluetoothd.flatMap { $0.isBluetoothd ? $0.program : nil } ?? "/usr/libexec/bluetooth/bluetoothd"
        let kernel = mode == .auto || mode == .mgmt
        let none = "bluetoothd offers no AdvertisementMonitorManager1 (\(bluetoothd?.version.map { "bluetoothd " + $0 } ?? "BlueZ") keeps it behind --experimental)"
        return Check(
            .advertisementMonitors, ok: true,
            detail: offered ? "bluetoothd offers AdvertisementMonitorManager1: passive scanning is possible"
                : kernel ? "\(none); in mgmt mode the daemon adds its own monitor to the kernel through the management channel, "
                    + "so the controller's duplicate filter is off all the same"
                : "\(none): no passive scanning",
            fix: DoctorItem.monitorsDropIn(bluetoothd: program),
            warning: !offered && !kernel)
    }

    /// The mode the running daemon scans in, or else the one `run` would
    /// pick with this process's capabilities (the unit grants the daemon
    /// CAP_NET_ADMIN, which a user's shell may lack); and what a better one would gain.
    private static func scanMode(_ mode: ScanMode, monitorsOffered: Bool, running: (mode: String, reason: String)?) -> Check {
        let detail: String, picked: String
        if let running {
            (detail, picked) = ("\(running.mode): \(running.reason) (the running daemon's)", running.mode)
        } else {
            let (reception, socket) = BlueZScanner<ContinuousClock>.choose(mode, managementChannel: { () throws(ManagementSocketError) in
                try ManagementSocket.openControlChannel()
            }, monitorsOffered: monitorsOffered, kernelMonitors: ProcessCapabilities.effective(contains: ProcessCapabilities.netAdmin))
            socket?.cancel()
            (detail, picked) = ("\(reception.mode.rawValue): \(reception.reason)", reception.mode.rawValue)
        }
        return Check(
            .scanMode, ok: true, detail: detail,
            warning: picked != ScanMode.mgmt.rawValue && mode != .active)
    }

    /// BlueZ's device cache: a file per device with a public or static
    /// address that advertised its whole name, never removed by bluetoothd.
    /// Years of car parks make it tens of thousands (and used up a
    /// filesystem's inodes on other gateways); the package's tmpfiles rule
    /// removes files not written for 30 days at the daily clean.
    static func bluezCache(storage: String = "/var/lib/bluetooth", limit: Int = 5_000) -> Check {
        guard FileManager.default.fileExists(atPath: storage) else {
            return Check(.bluezCache, ok: true, detail: "no \(storage): BlueZ has stored nothing")
        }
        guard let adapters = try? FileManager.default.contentsOfDirectory(atPath: storage) else {
            return Check(.bluezCache, ok: true, detail: "cannot read \(storage) (bluetoothd keeps it to root): run doctor as root to count its cache")
        }
        let counts = adapters.sorted().compactMap { adapter in
            (try? FileManager.default.contentsOfDirectory(atPath: "\(storage)/\(adapter)/cache")).map { (adapter, $0.count) }
        }
        let total = counts.reduce(0) { $0 + $1.1 }
        let each = counts.map { "\($0): \($1)" }.joined(separator: ", ")
        return Check(.bluezCache, ok: true, detail: "\(total) device files in BlueZ's cache\(each.isEmpty ? "" : " (\(each))"); more than \(limit) is worth a clean",
                     warning: total > limit)
    }

    /// Whether the watchdog's ladder ended in a needed power cycle, with no advert since.
    private static func radio(_ invocation: Invocation) -> Check {
        let since = (try? existingStore(invocation)?.radioNeedsPowerCycle()) ?? nil
        return Check(
            .radioPowerCycle, ok: since == nil,
            detail: since.map { "needs a power cycle since \($0.formatted(.iso8601)): no adverts after every recovery step" } ?? "no power cycle needed",
            needs: [.storeIntegrity])
    }

    /// `mqtt test`, when `[MQTT] Broker` is set.
    private static func mqtt(_ configuration: Configuration, _ invocation: Invocation) async -> Check? {
        guard !configuration.mqtt.brokers.isEmpty else { return nil }
        let deviceID = (try? existingStore(invocation)?.deviceID) ?? ""
        let result: Result<[String], MQTTCommand.Problem>
        do {
            guard let settings = try configuration.mqttSettings(deviceID: deviceID) else { return nil }
            result = await MQTTCommand.check(settings, topic: configuration.mqttTopicPrefix(deviceID: deviceID) + "/availability")
        } catch {
            result = .failure(MQTTCommand.Problem(description: error.description))
        }
        switch result {
        case .success(let lines):
            return Check(.mqttBroker, ok: true, detail: lines.joined(separator: "; "))
        case .failure(let problem):
            return Check(.mqttBroker, ok: false, detail: configuration.mqtt.brokers.map(\.address).joined(separator: ", "), fix: problem.description)
        }
    }

    /// The best state the location reader reaches within three seconds.
    private static func location(_ configuration: Configuration) async -> [Check] {
        let reader = LocationReader(source: configuration.location.source, options: configuration.location.readerOptions, clock: ContinuousClock())
        // The states until a fix, or for 3 s.
        let state = await reader.reading { events in
            await withTaskGroup(of: LocationState?.self) { group in
                group.addTask {
                    var last = LocationState.unreachable
                    for await event in events {
                        guard case .state(let current) = event else { continue }
                        last = current
                        if current == .fix { break }
                    }
                    return last
                }
                group.addTask {
                    _ = await ContinuousClock().pause(for: .seconds(3))
                    return nil
                }
                // The first to end ends the other: the states read, cut short, say the best.
                var best = LocationState.unreachable
                for await state in group {
                    if let state { best = state }
                    group.cancelAll()
                }
                return best
            }
        }
        let source = configuration.location.source.description
        return [
            Check(.locationReachable, ok: state != .unreachable, detail: source),
            Check(.locationDevice, ok: state == .noFix || state == .fix, detail: state.rawValue, needs: [.locationReachable]),
            Check(.locationFix, ok: state == .fix, detail: state.rawValue, needs: [.locationDevice]),
        ]
    }

    static func store(_ invocation: Invocation) -> [Check] {
        let directory = invocation.dataDirectory
        var info = stat()
        let exists = lstat(directory, &info) == 0
        let isDirectory = exists && info.st_mode & S_IFMT == S_IFDIR
        let privateDirectory = exists && info.st_mode & 0o077 == 0
        let writable = access(directory, W_OK) == 0
        let readOnly = !writable && errno == EROFS
        var integrity = "not created yet"
        var integrityFix = ""
        if isDirectory, access(invocation.storePath, F_OK) == 0 {
            do {
                let store = try GatewayStore(path: invocation.storePath, create: false)
                integrity = try store.database.read { try $0.scalar("PRAGMA quick_check")?.text } ?? "?"
                integrityFix = Self.fix(forStoreError: StorageError.damaged(path: invocation.storePath, reason: integrity), directory: directory)
            } catch {
                integrity = "\(error)"
                integrityFix = Self.fix(forStoreError: error, directory: directory)
            }
        }
        // Someone else's store is not broken: doctor runs as the wrong user.
        let owner = exists && geteuid() != 0 && geteuid() != info.st_uid ? getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } : nil
        let unwritable = if exists && info.st_mode & S_IFMT == S_IFLNK {
            "the store never follows a symbolic link: give --data-dir the real directory"
        } else if exists && !isDirectory {
            "\(directory) is not a directory: give --data-dir (or the unit's StateDirectory) a directory"
        } else {
            owner.map { "run it as the store's owner: sudo -u \($0) waymark doctor" }
                ?? (readOnly ? "the filesystem under \(directory) is read-only: remount it read-write" : "chmod 700 \(directory)")
        }
        let kind = !exists ? "not created yet" : info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : isDirectory ? "" : "not a directory"
        return [
            Check(.storeWritable, ok: !exists || (isDirectory && writable), detail: kind.isEmpty ? directory : "\(directory): \(kind)", fix: unwritable),
            // Only a directory's mode is judged: anything else fails `writable`, with its own fix.
            Check(.storePermissions, ok: !isDirectory || privateDirectory, detail: exists ? String(info.st_mode & 0o777, radix: 8) : "not created yet",
                  fix: "chmod 700 \(directory)"),
            Check(.storeIntegrity, ok: integrity == "ok" || integrity == "not created yet", detail: integrity, fix: integrityFix.isEmpty ? nil : integrityFix,
                  needs: [.storeWritable, .storePermissions]),
        ]
    }

    /// What to do about a store that would not open: each refusal has its own fix.
    static func fix(forStoreError error: any Error, directory: String) -> String {
        switch error as? StorageError {
        case .newerSchema?: "install the newer Waymark again, or move the store aside (it is kept) and log in to start an empty one"
        case .damaged?: "waymark start moves the damaged store aside (kept as waymark.db.corrupt-…) and starts an empty one"
        case .refused(let path, _)?: "give the store a private directory of its own (chmod 700; no symbolic link): \(path)"
        case .notOwned(let path, let owner, _)?:
            "run it as the store's owner: sudo -u \(getpwuid(owner).map { String(cString: $0.pointee.pw_name) } ?? "#\(owner)") waymark doctor (\(path))"
        default: "check the disk and the permissions of \(directory)"
        }
    }

    private static func session(_ configuration: Configuration, _ invocation: Invocation) async -> [Check] {
        let stored = existingStore(invocation)
        let session = stored.flatMap { try? SessionStore(database: $0.database).load() }
        let now = Date().timeIntervalSince1970
        let identity = SessionCommands.Identity(session, now: now)
        var checks = [
            Check(.sessionAuthorized, ok: identity.authorized, detail: identity.loggedIn ? identity.text : "not logged in", needs: [.storeIntegrity]),
            Check(.sessionAccount, ok: session?.account != nil,
                  detail: session?.account?.vehicleID ?? session?.accountProblem.map { "stored, but unreadable: \($0)" } ?? "none",
                  fix: session?.accountProblem.map { _ in "waymark login --force (the stored account is read again from the backend)" },
                  needs: [.sessionAuthorized]),
        ]
        let base = session?.account?.apiBaseURL ?? configuration.backend.baseURL ?? ""
        if base.isEmpty {
            checks.append(Check(.backend, ok: false, detail: "no backend URL", fix: "set [Backend] BaseURL"))
        } else {
            var request = HTTPRequest(method: "HEAD", url: base, timeout: .seconds(5))
            request.headers = []
            let reached: String
            do {
                reached = "answered \((try await HTTPClient(caFile: configuration.session.caFile).send(request)).status)"
            } catch {
                reached = "\(error)"
            }
            checks.append(Check(.backend, ok: reached.hasPrefix("answered"), detail: "\(base): \(reached)"))
        }
        return checks
    }

    /// The store if there is one: doctor only looks, and never creates one.
    private static func existingStore(_ invocation: Invocation) -> GatewayStore? {
        Database.exists(at: invocation.storePath) ? try? GatewayStore(path: invocation.storePath, create: false) : nil
    }

    /// The Pi has no RTC: before NTP syncs, the clock can be years behind.
    private static func clock() -> Check {
        let year = CivilTime.iso8601(Date().timeIntervalSince1970).prefix(4)
        let plausible = (Int(year) ?? 0) >= 2025
        return Check(.clock, ok: plausible, detail: "year \(year)")
    }
}
