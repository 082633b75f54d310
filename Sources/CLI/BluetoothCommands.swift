import Advertisements
import Basics
import BlueZ
package import Command
import Config
import DBus
import FoundationEssentials
internal import Glibc
import Logging
import Pairings
import Radio
import Store
import Vocabulary

/// `decode`, `scan`, `pair`, `beacons` and `unpair`.
package enum BluetoothCommands {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "decode", summary: "Decode one advertising payload offline.",
                    details: "Prints what the payload decodes to, or unknown with its bytes; --json as scan --json prints each advert.", options: [
            OptionSpec(name: "--manufacturer-data", valueName: "0xCCCC:HEX", help: "company id and payload after it"),
            OptionSpec(name: "--service-data", valueName: "UUID:HEX", help: "service UUID (16-bit or 128-bit) and payload"),
            OptionSpec(name: "--address", valueName: "AA:BB:…", help: "advertiser address (for encrypted BTHome)"),
            OptionSpec(name: "--json", help: "one line of JSON"),
        ] + KeyInput.bindkey.options, run: decode),
        CommandSpec(name: "scan", summary: "Show nearby beacons and tags live (a table on a terminal, lines or NDJSON in a pipe).",
                    details: "A device that matches a pairing is marked with its label (PAIRED car: in the table, paired: car as the last field, \"pairing\" in JSON), a phone's private address resolved by its IRK included. While the daemon scans, scan shows what the daemon hears; --radio scans with the radio whatever runs.", options: [
            OptionSpec(name: "--json", help: "NDJSON, one sighting per line"),
            OptionSpec(name: "--duration", valueName: "S", help: "stop after S seconds"),
            OptionSpec(name: "--radio", help: "scan with the radio even while the daemon scans (a discovery of its own beside the daemon's changes what the daemon hears)"),
        ], run: scan),
        CommandSpec(name: "pair", summary: "Pair the vehicle beacon or a sensor tag, by identity.",
                    details: "By an iBeacon, Eddystone or AltBeacon identity, a Ruuvi or BTHome tag's own MAC, a fixed address, an IRK for private addresses, or a device bonded to BlueZ; --strongest takes the strongest beacon heard. There is one vehicle beacon: pairing a new one replaces the old.", options: [
            OptionSpec(name: "--role", valueName: "vehicle|sensor", help: "what the device is (default vehicle)"),
            OptionSpec(name: "--label", valueName: "TEXT", help: "a name to show"),
            OptionSpec(name: "--ibeacon", valueName: "UUID:MAJOR:MINOR", help: "pair this iBeacon without scanning"),
            OptionSpec(name: "--eddystone", valueName: "NAMESPACE:INSTANCE", help: "pair this Eddystone-UID without scanning"),
            OptionSpec(name: "--address", valueName: "AA:BB:…", help: "pair by fixed address (tags that do not rotate)"),
            OptionSpec(name: "--bonded", help: "list devices bonded to BlueZ (it resolves their private addresses) and pair one by identity address"),
            OptionSpec(name: "--strongest", help: "scan and pair the strongest beacon heard"),
            OptionSpec(name: "--within", valueName: "S", help: "how long to scan (default 10)"),
        ] + KeyInput.bindkey.options + KeyInput.irk.options, run: pair),
        CommandSpec(name: "beacons", summary: "List pairings.",
                    details: "Bindkeys and IRKs are never printed.", options: [OptionSpec(name: "--json", help: "JSON array")], run: beacons),
        CommandSpec(name: "unpair", summary: "Remove a pairing.", arguments: "ID", run: unpair),
    ]

    // MARK: decode

    static func decode(_ invocation: Invocation) async -> ExitCode {
        let bindkey: [UInt8]?
        switch KeyInput.bindkey.read(invocation, for: "decode") {
        case .success(let key): bindkey = key
        case .failure(let code): return code
        }
        var address: [UInt8]?
        if let text = invocation.values["--address"] {
            guard let parsed = BluetoothAddress(text) else {
                Log.error("decode: --address must be AA:BB:CC:DD:EE:FF, got \(text.debugDescription)")
                return .dataError
            }
            address = parsed.bytes
        }
        let advertisement: Advertisement
        if let text = invocation.values["--manufacturer-data"] {
            guard let (key, bytes) = split(text), let company = UInt16(key.hasPrefix("0x") || key.hasPrefix("0X") ? String(key.dropFirst(2)) : key, radix: 16) else {
                Log.error("decode: --manufacturer-data must be 0xCCCC:HEX, got \(text.debugDescription)")
                return .dataError
            }
            advertisement = AdvertisementDecoder.decode(companyID: company, bytes)
        } else if let text = invocation.values["--service-data"] {
            guard let (key, bytes) = split(text), let uuid = BluetoothUUID(key) else {
                Log.error("decode: --service-data must be UUID:HEX with a 16-, 32- or 128-bit UUID, got \(text.debugDescription)")
                return .dataError
            }
            if bindkey != nil, address == nil {
                Log.error("decode: --bindkey needs --address: the advertiser's address is part of BTHome's nonce")
                return .usage
            }
            advertisement = AdvertisementDecoder.decode(serviceUUID: uuid, bytes, bindkey: bindkey, address: address)
        } else {
            Log.error("decode: give --manufacturer-data or --service-data")
            return .usage
        }
        let encoder = JSONEncoder.sorted
        if !invocation.flag("--json") { encoder.outputFormatting.insert(.prettyPrinted) }
        encoder.printLine(advertisement)
        return .ok
    }

    /// `KEY:HEX` → (KEY, bytes); the key itself may contain colons (`0x004C`, a UUID does not).
    private static func split(_ text: String) -> (String, [UInt8])? {
        guard let colon = text.lastIndex(of: ":"), let bytes = Advertisement.parseHex(text[text.index(after: colon)...]) else { return nil }
        return (String(text[..<colon]), bytes)
    }

    // MARK: scan

    static func scan(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        guard let duration = seconds(invocation.values["--duration"], default: nil) else { return .usage }
        let paired = PairedDevices(BestEffort.read("the pairings; sightings are shown unmarked", or: []) { try pairings(invocation) })
        let json = invocation.flag("--json")
        let live = isatty(STDOUT_FILENO) == 1 && !json
        // Lines (NDJSON or tab-separated) are written from the scanner's
        // queue as each advert arrives: no task hop per sighting, and none
        // dropped in busy air.
        var writeLine: (@Sendable (Sighting) -> Void)?
        if !live { writeLine = { sighting in Self.printLine(DecodedSighting(sighting, paired: paired), json: json) } }
        let session: ScanSession
        do { session = try await ScanSession.start(configuration, besideDaemon: !invocation.flag("--radio"), onSighting: writeLine) } catch {
            Log.error("\(error)")
            return .unavailable
        }
        if live {
            var table = ScanTable()
            var lastDraw = Date.distantPast
            await session.forEachSighting(for: duration) { sighting in
                table.add(DecodedSighting(sighting, paired: paired))
                let now = Date()
                if now.timeIntervalSince(lastDraw) >= 0.5 {
                    // Home, draw, clear the rest: the table stays in place.
                    print("\u{1B}[H" + table.render(now: now) + "\u{1B}[J", terminator: "")
                    fflush(nil)
                    lastDraw = now
                }
            }
            print("\u{1B}[H" + table.render(now: Date()) + "\u{1B}[J")
        } else {
            await session.run(for: duration)
        }
        await session.stop()
        return .ok
    }

    /// One sighting as a line of NDJSON, or tab-separated fields, written at
    /// once: a pipe or a file would otherwise get 4 KiB at a time, and a log
    /// line on stderr could land inside a sighting's.
    private static func printLine(_ decoded: DecodedSighting, json: Bool) {
        if json {
            scanEncoder.printLine(decoded)
        } else {
            print([decoded.address, decoded.rssi.map { "\($0)dBm" } ?? "-", decoded.format, decoded.identity?.description ?? "-", decoded.summary,
                   decoded.pairing.map { "paired: \($0.label)" } ?? "-"]
                .joined(separator: "\t"))
        }
        fflush(nil)
    }

    /// `scan --json`'s encoder: sorted keys, times in milliseconds (a field
    /// test compares adverts less than a second apart).
    static let scanEncoder: JSONEncoder = {
        let encoder = JSONEncoder.sorted
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var value = encoder.singleValueContainer()
            try value.encode(CivilTime.iso8601(date.timeIntervalSince1970))
        }
        return encoder
    }()

    // MARK: pair

    static func pair(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        guard let role = Pairing.Role(rawValue: invocation.values["--role"] ?? "vehicle") else {
            Log.error("pair: --role must be vehicle or sensor")
            return .usage
        }
        // One way to name the device: a flag that does not apply to it is an error, never ignored.
        let ways = ["--ibeacon", "--eddystone", "--address", "--irk", "--irk-file", "--bonded"].filter {
            invocation.values[$0] != nil || invocation.flag($0)
        }
        let named = ways.filter { $0 != "--address" || !ways.contains("--bonded") }
        guard named.count <= 1 else {
            Log.error("pair: give one identity, not \(named.joined(separator: " and ")) together (--bonded takes --address)")
            return .usage
        }
        if !named.isEmpty, let scanOnly = ["--within", "--strongest"].first(where: { invocation.values[$0] != nil || invocation.flag($0) }) {
            Log.error("pair: \(scanOnly) chooses by scanning; it does not apply to \(named[0])")
            return .usage
        }
        let label = invocation.values["--label"]
        if let label, let problem = Pairing.labelProblem(label) {
            Log.error("pair: --label \(problem)")
            return .usage
        }
        var bindkey: [UInt8]?
        switch KeyInput.bindkey.read(invocation, for: "pair") {
        case .success(let key): bindkey = key
        case .failure(let code): return code
        }
        var identity: DeviceIdentity?
        switch KeyInput.irk.read(invocation, for: "pair") {
        case .success(let key?):
            guard bindkey == nil, let resolving = DeviceIdentity.resolving(with: key) else {
                Log.error("pair: an IRK pairing takes no bindkey")
                return .usage
            }
            // The key is kept in the pairing's key column and never printed.
            (identity, bindkey) = (resolving, key)
        case .success(nil): break
        case .failure(let code): return code
        }
        if identity != nil {
            // Paired by IRK.
        } else if invocation.flag("--bonded") {
            identity = await chooseBonded(configuration, address: invocation.values["--address"])
            guard identity != nil else { return .unavailable }
        } else if let text = invocation.values["--ibeacon"] {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 36, let uuid = UUID(uuidString: String(parts[0])),
                  let major = Self.decimal16(parts[1]), let minor = Self.decimal16(parts[2]) else {
                Log.error("pair: --ibeacon must be UUID:MAJOR:MINOR (a UUID of hex digits, MAJOR and MINOR 0 to 65535), got \(text.debugDescription)")
                return .usage
            }
            identity = .iBeacon(uuid: uuid.uuidString.lowercased(), major: major, minor: minor)
        } else if let text = invocation.values["--eddystone"] {
            let parts = text.split(separator: ":")
            guard parts.count == 2, parts[0].count == 20, parts[1].count == 12,
                  Advertisement.parseHex(parts[0]) != nil, Advertisement.parseHex(parts[1]) != nil else {
                Log.error("pair: --eddystone must be NAMESPACE:INSTANCE (20 and 12 hex digits)")
                return .usage
            }
            identity = .eddystone(namespace: parts[0].uppercased(), instance: parts[1].uppercased())
        } else if let text = invocation.values["--address"] {
            guard let address = BluetoothAddress(text) else {
                Log.error("pair: --address must be AA:BB:CC:DD:EE:FF")
                return .usage
            }
            identity = .address(of: address)
        } else {
            guard let within = seconds(invocation.values["--within"], default: .seconds(10)) else { return .usage }
            identity = await chooseByScanning(configuration, within: within ?? .seconds(10), strongest: invocation.flag("--strongest"))
            guard identity != nil else { return .unavailable }
        }
        guard let identity else { return .usage }
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: "pair") {
        case .store(let opened): store = opened
        case .absent: return .software
        case .failed(let code): return code
        }
        do {
            let pairing = try PairingStore(database: store.database).pair(
                identity: identity, role: role, label: label ?? identity.description, bindkey: bindkey.map(KeyInput.hex))
            print("paired \(pairing.role.rawValue) #\(pairing.id): \(pairing.identity) (\(TerminalText.escaped(pairing.label)))")
            return .ok
        } catch let failure as PairingStore.Failure {
            // The store holds what no pairing can follow: it cannot be written as it is.
            Log.error("pair: \(failure)")
            return .ioError
        } catch {
            Log.error("pair: \(error)")
            return StoreAccess.exitCode(for: error)
        }
    }

    /// Scans for `within`; returns the strongest identity, or lets the user pick.
    private static func chooseByScanning(_ configuration: Configuration, within: Duration, strongest: Bool) async -> DeviceIdentity? {
        let session: ScanSession
        do { session = try await ScanSession.start(configuration) } catch {
            Log.error("\(error)")
            return nil
        }
        var best: [DeviceIdentity: DecodedSighting] = [:]
        await session.forEachSighting(for: within) { sighting in
            let decoded = DecodedSighting(sighting)
            guard let identity = decoded.identity else { return }
            if (best[identity]?.rssi ?? -999) <= (decoded.rssi ?? -999) { best[identity] = decoded }
        }
        await session.stop()
        let ranked = best.sorted { ($0.value.rssi ?? -999) > ($1.value.rssi ?? -999) }
        guard !ranked.isEmpty else {
            Log.error("pair: no beacon or tag with an identity was heard")
            return nil
        }
        if strongest { return ranked[0].key }
        for (index, entry) in ranked.enumerated() {
            print("\(index + 1)) \(entry.key)  \(entry.value.rssi.map { "\($0) dBm" } ?? "")  \(entry.value.summary)")
        }
        print("pair which one? ", terminator: "")
        guard let answer = readLine(), let choice = Int(answer), ranked.indices.contains(choice - 1) else {
            Log.error("pair: no valid choice")
            return nil
        }
        return ranked[choice - 1].key
    }

    /// Devices bonded to BlueZ, which resolves their private addresses and
    /// reports them under their identity address: `address` if it is one of
    /// them, else the user's pick.
    private static func chooseBonded(_ configuration: Configuration, address: String?) async -> DeviceIdentity? {
        let bus: DBusConnection
        do { bus = try await DBusConnection.system() } catch {
            Log.error("pair: no system bus (\(error))")
            return nil
        }
        defer { bus.close() }
        let bonded = await BlueZScanner<ContinuousClock>.bondedDevices(on: bus, adapter: configuration.bluetooth.adapter)
        if let address {
            guard let wanted = BluetoothAddress(address), let device = bonded.first(where: { $0.address.sameDevice(as: wanted) }) else {
                Log.error("pair: \(address) is not bonded to BlueZ; bond it first (bluetoothctl pair), or see waymark pair --bonded")
                return nil
            }
            return .address(of: device.address)
        }
        guard !bonded.isEmpty else {
            Log.error("pair: no device is bonded to BlueZ; bond the phone or tag first (bluetoothctl pair)")
            return nil
        }
        for (index, device) in bonded.enumerated() {
            print("\(index + 1)) \(device.address)  \(device.name ?? "")")
        }
        print("pair which one? ", terminator: "")
        guard let answer = readLine(), let choice = Int(answer), bonded.indices.contains(choice - 1) else {
            Log.error("pair: no valid choice")
            return nil
        }
        return .address(of: bonded[choice - 1].address)
    }

    // MARK: beacons, unpair

    static func beacons(_ invocation: Invocation) async -> ExitCode {
        do {
            let list = try pairings(invocation)
            if invocation.flag("--json") {
                print(String(decoding: try JSONEncoder.snakeCase.encode(list), as: UTF8.self))
            } else if list.isEmpty {
                print("no pairings; see waymark pair --help")
            } else {
                for p in list {
                    let key = p.bindkey == nil ? "" : p.isIRK ? "\tIRK set" : "\tbindkey set"
                    print("#\(p.id)\t\(p.role.rawValue)\t\(TerminalText.escaped(p.identity.description))\t\(TerminalText.escaped(p.label))\(key)")
                }
            }
            return .ok
        } catch let code as ExitCode {
            return code
        } catch {
            Log.error("beacons: \(error)")
            return StoreAccess.exitCode(for: error)
        }
    }

    static func unpair(_ invocation: Invocation) async -> ExitCode {
        guard invocation.arguments.count == 1, let id = Int64(invocation.arguments[0]) else {
            Log.error("unpair: give one pairing ID (see waymark beacons)")
            return .usage
        }
        let store: GatewayStore
        do { store = try StoreAccess.existing(invocation, for: "unpair", absent: "no pairing #\(id)") } catch { return error }
        do {
            try PairingStore(database: store.database).unpair(id)
            print("unpaired #\(id)")
            return .ok
        } catch let error as PairingStore.Failure {
            Log.error("unpair: \(error)")
            return .dataError
        } catch {
            Log.error("unpair: \(error)")
            return StoreAccess.exitCode(for: error)
        }
    }

    private static func pairings(_ invocation: Invocation) throws -> [Pairing] {
        switch StoreAccess.open(invocation, for: invocation.command ?? "beacons", create: false) {
        case .store(let store): return try PairingStore(database: store.database).all()
        case .absent: return []
        case .failed(let code): throw code
        }
    }

    /// MAJOR or MINOR of an iBeacon: decimal digits only, 0 to 65535.
    private static func decimal16(_ text: Substring) -> UInt16? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt16(text)
    }

    /// nil for a malformed value (after logging); `.some(nil)` when absent without default.
    private static func seconds(_ text: String?, default fallback: Duration?) -> Duration?? {
        guard let text else { return .some(fallback) }
        guard let value = ConfigValue.duration(text), value > .zero else {
            Log.error("expected a duration in seconds, got \(text.debugDescription)")
            return nil
        }
        return .some(value)
    }
}
