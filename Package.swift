// swift-tools-version:6.0
import PackageDescription

/// Strict settings shared by every Swift target.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Each function in its own section, so the linker can put the ones the
    // daemon runs next to each other (see `waymarkLinking`).
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
]

/// How the shipped binary is linked, for a small resident set on the Pi:
/// - the Swift runtime and Foundation linked in (no ICU);
/// - lld, with relative relocations packed (DT_RELR, glibc 2.36): 8 KiB of
///   them instead of 1 MiB that the loader reads at every start;
/// - no exported symbols: nothing loads the executable as a library;
/// - functions in the order of `Benchmarks/waymark.order`, the ones a
///   recording daemon runs first, so the kernel maps fewer pages of code
///   (`make order-file` remakes it; names it lacks are placed as usual).
let waymarkLinking: [String] = [
    "-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims", "-use-ld=lld",
    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
    "-Xlinker", "--symbol-ordering-file=\(String(#filePath.dropLast("Package.swift".count)))Benchmarks/waymark.order",
    "-Xlinker", "--no-warn-symbol-ordering",
]

let package = Package(
    name: "Waymark",
    products: [
        .executable(name: "waymark", targets: ["waymark"]),
        .executable(name: "waymark-bench", targets: ["waymark-bench"]),
        .executable(name: "waymark-demo", targets: ["waymark-demo"]),
    ],
    targets: [
        // System libraries from Debian: a module map and a shim header each.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Linux calls Glibc's module lacks (prctl, adjtimex), as inline functions.
        .systemLibrary(name: "CSystem"),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // Thin Swift faces over the C libraries.
        .target(name: "Logging", swiftSettings: strict),
        // The words modules pass each other: requirements, events, identities, commands.
        .target(name: "Vocabulary", dependencies: ["CBluetooth"], swiftSettings: strict),
        // Small shared basics: clamping outside numbers, backoff, civil time.
        .target(name: "Basics", dependencies: ["CSystem"], swiftSettings: strict),
        .target(name: "DBus", dependencies: ["CDBus", "CSystem", "Basics"], swiftSettings: strict),
        .target(name: "Storage", dependencies: ["CSQLite", "Basics"], swiftSettings: strict),
        // The kernel's Bluetooth interfaces: the management socket and its events, rfkill, capabilities, addresses.
        .target(name: "BluetoothKernel", dependencies: ["CBluetooth", "CSystem", "Basics", "Vocabulary"], swiftSettings: strict),
        .target(name: "Cipher", dependencies: ["CCrypto"], swiftSettings: strict),
        .target(name: "HTTP", dependencies: ["CCurl", "Basics"], swiftSettings: strict),
        .target(name: "QRCode", dependencies: ["CQRencode"], swiftSettings: strict),
        .target(name: "Session", dependencies: ["HTTP", "Storage", "Logging", "Basics"], swiftSettings: strict),
        // Services, the group that starts and stops them, and POSIX signals as a stream.
        .target(name: "Lifecycle", dependencies: ["Basics"], swiftSettings: strict),
        // The typed sample that Recording makes and Upload sends, and its one JSON encoder.
        .target(name: "Telemetry", dependencies: ["Vocabulary", "Basics", "Advertisements"], swiftSettings: strict),
        .target(name: "Recording", dependencies: ["Vocabulary", "Telemetry", "Advertisements"], swiftSettings: strict),
        .target(name: "Upload", dependencies: ["CZlib", "HTTP", "Storage", "Basics", "Logging", "Telemetry", "Vocabulary"], swiftSettings: strict),
        // The outbox's second sink: batches and retained state on an MQTT
        // broker through libmosquitto, with Home Assistant discovery.
        .target(name: "MQTT", dependencies: ["CMosquitto", "Upload", "Telemetry", "Advertisements", "Basics", "Logging", "Vocabulary"], swiftSettings: strict),

        // Pure decoders of advertising payloads.
        .target(name: "Advertisements", dependencies: ["Vocabulary", "Basics", "Cipher"], swiftSettings: strict),
        // The radio's model: sightings, scan modes, the scanner's events and the watchdog's ladder, as plain values and pure decisions.
        .target(name: "Radio", dependencies: ["Vocabulary"], swiftSettings: strict),
        .target(name: "BlueZ", dependencies: ["Basics", "DBus", "BluetoothKernel", "Radio", "Vocabulary", "Lifecycle", "Logging"], swiftSettings: strict),
        .target(name: "Location", dependencies: ["CGPS", "Logging", "Basics", "Telemetry", "Vocabulary"], swiftSettings: strict),
        // Field captures: everything the gateway heard, framed and gzip-compressed, for replay.
        .target(name: "Capture", dependencies: ["Vocabulary", "CZlib", "Basics", "Logging", "Radio"], swiftSettings: strict),

        // The command line's plumbing: commands, options, exit codes, the version.
        .target(name: "Command", dependencies: ["Basics"], swiftSettings: strict),
        // Configuration: the file, its schema (the one source of every default), the fleet's pushed settings (a plain value: no store).
        .target(
            name: "Config",
            dependencies: ["Session", "Upload", "MQTT", "Location", "BlueZ", "BluetoothKernel", "Recording", "Logging", "Basics", "Radio"],
            swiftSettings: strict
        ),
        // Paired beacons and tags: their store, matching sightings against them, private address resolution.
        .target(
            name: "Pairings",
            dependencies: ["Vocabulary", "Advertisements", "Cipher", "Recording", "Storage", "Telemetry", "Logging", "Radio"],
            swiftSettings: strict
        ),
        // The gateway's store: its schema and migrations, the wipe list, trips, events, the heartbeat.
        .target(
            name: "Store",
            dependencies: ["Vocabulary", "Pairings", "Advertisements", "Session", "Upload", "Storage", "Telemetry", "Logging", "Basics"],
            swiftSettings: strict
        ),
        // What carries out the recording core's actions, for the daemon and
        // replay alike: the stamper and the one commit path, the capture tap,
        // the radio's health meter.
        .target(
            name: "Recorder",
            dependencies: ["Vocabulary", "Pairings", "Store", "Capture", "Storage", "Upload", "Recording", "Telemetry", "Logging", "Basics", "Radio"],
            swiftSettings: strict
        ),
        // `waymark replay`: the recording core driven from a capture on a virtual clock.
        .target(
            name: "Replay",
            dependencies: ["Vocabulary", "Recorder", "Config", "Pairings", "Store", "Capture", "Location", "Upload", "Recording", "Telemetry", "Basics", "Radio"],
            swiftSettings: strict
        ),
        // The host's side of the daemon: systemd's readiness and watchdog,
        // logind's sleep inhibitor, and the bus signals that wake the controller.
        .target(name: "Host", dependencies: ["Vocabulary", "DBus", "Session", "Lifecycle", "Logging", "Basics"], swiftSettings: strict),
        // The session's keep-alive and the outbox's sinks (HTTP, MQTT), while authorized.
        .target(
            name: "Uplink",
            dependencies: ["Vocabulary", "Config", "Store", "Pairings", "Session", "Upload", "MQTT", "Telemetry", "Lifecycle", "Logging", "Basics", "HTTP"],
            swiftSettings: strict
        ),
        // The daemon's recorder: it feeds the recording core and carries out
        // its actions (the scanner, commits, events); the radio's health reports.
        .target(
            name: "Daemon",
            dependencies: ["Vocabulary", "Recorder", "Store", "Pairings", "Capture", "BlueZ", "Recording", "Telemetry", "Lifecycle", "Logging", "Basics", "Radio"],
            swiftSettings: strict
        ),
        // The daemon's control interface (io.waymark.Gateway1) and the state behind it.
        .target(name: "Control", dependencies: ["Vocabulary", "Daemon", "Host", "DBus", "Location", "Upload", "Telemetry", "Lifecycle", "Logging", "Basics", "Radio"], swiftSettings: strict),
        // Every command but those that compose the recorder, and their output.
        .target(
            name: "CLI",
            dependencies: ["Vocabulary", "Radio", "Config", "Store", "Pairings", "Command", "Control", "Uplink", "DBus", "Storage", "BlueZ", "Advertisements", "Location", "Session", "Upload", "MQTT", "Telemetry", "QRCode", "Logging", "Basics"],
            swiftSettings: strict
        ),
        // The composition root: `waymark run` builds the daemon from its
        // parts; capture and replay drive the recorder; the table of commands.
        .target(
            name: "Run",
            dependencies: ["CLI", "Command", "Config", "Store", "Daemon", "Control", "Host", "Uplink", "Recorder", "Replay", "Capture", "Pairings", "Radio", "BlueZ", "DBus", "Location", "Session", "Storage", "Upload", "MQTT", "Recording", "Telemetry", "Lifecycle", "Logging", "Basics", "Vocabulary", "CSystem", "HTTP", "BluetoothKernel"],
            swiftSettings: strict
        ),
        .executableTarget(name: "waymark", dependencies: ["Run"], swiftSettings: strict, linkerSettings: [.unsafeFlags(waymarkLinking)]),
        // The bench's floor for D-Bus receiving: minimal C receivers on libdbus and sd-bus.
        .target(name: "DBusFloor", dependencies: ["CDBus", "CSystemd"], path: "Benchmarks/DBusFloor"),
        .executableTarget(
            name: "waymark-bench",
            dependencies: ["DBusFloor", "Vocabulary", "DBus", "Storage", "Config", "Pairings", "BluetoothKernel", "BlueZ", "Advertisements", "Location", "Session", "Upload", "MQTT", "Recording", "Telemetry", "Peers", "Basics", "Uplink", "Radio"],
            path: "Benchmarks/waymark-bench", swiftSettings: strict
        ),
        // Structure-aware fuzzing of every parser of outside bytes (`make fuzz`; a short run is in the tests).
        .target(name: "Fuzzing", dependencies: ["Vocabulary", "Basics", "Advertisements", "BluetoothKernel", "BlueZ", "Capture", "Config", "HTTP", "Location", "Pairings", "Session", "Storage", "Store", "Telemetry", "Upload", "Radio"], swiftSettings: strict),
        .executableTarget(name: "waymark-fuzz", dependencies: ["Fuzzing"], swiftSettings: strict),
        .executableTarget(name: "waymark-demo", dependencies: ["Basics", "DBus", "Peers"], swiftSettings: strict),

        // Starts and stops real peers by PID (dbus-daemon, python-dbusmock's
        // BlueZ, glewlwyd, gpsd, the ingest server): for the demo, the bench
        // and the tests.
        .target(name: "Peers", dependencies: ["DBus", "HTTP", "Session", "Storage", "Capture", "BlueZ", "Basics", "Vocabulary", "Radio"], resources: [.copy("Templates")], swiftSettings: strict),
        // Test-only support (a test clock, deadlines, the mocks only tests
        // need), with the peers re-exported. No shipped executable links it.
        .target(name: "PeerHarness", dependencies: ["Peers", "DBus", "Basics", "CZlib"], path: "Tests/Support", swiftSettings: strict),

        .testTarget(name: "VocabularyTests", dependencies: ["Vocabulary"], swiftSettings: strict),
        .testTarget(name: "BasicsTests", dependencies: ["Basics"], swiftSettings: strict),
        .testTarget(name: "FuzzTests", dependencies: ["Fuzzing"], swiftSettings: strict),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "Basics", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "TelemetryTests", dependencies: ["Vocabulary", "Telemetry", "Advertisements", "Basics"], swiftSettings: strict),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle", "PeerHarness", "Basics"], swiftSettings: strict),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "BlueZ", "Basics", "Upload", "PeerHarness", "Vocabulary", "Radio"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["Storage"], swiftSettings: strict),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "Upload", "Telemetry", "Storage", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "Vocabulary", "Telemetry", "Advertisements"], swiftSettings: strict),
        .testTarget(name: "SessionTests", dependencies: ["Session", "HTTP", "Storage", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "UploadTests", dependencies: ["Upload", "Telemetry", "Session", "HTTP", "Storage", "Basics", "PeerHarness", "Vocabulary", "Uplink"], swiftSettings: strict),
        .testTarget(name: "LocationTests", dependencies: ["Location", "Telemetry", "Basics", "PeerHarness"], exclude: ["drives"], resources: [.copy("gpsd")], swiftSettings: strict),
        .testTarget(
            name: "BlueZTests", dependencies: ["Vocabulary", "BlueZ", "BluetoothKernel", "DBus", "Advertisements", "PeerHarness", "Radio"], swiftSettings: strict
        ),
        .testTarget(
            name: "AdvertisementsTests", dependencies: ["Vocabulary", "Advertisements", "Cipher", "Basics", "PeerHarness"],
            resources: [.copy("vectors.json")], swiftSettings: strict
        ),
        .testTarget(name: "BluetoothKernelTests", dependencies: ["BluetoothKernel", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "RadioTests", dependencies: ["Radio"], swiftSettings: strict),
        .testTarget(name: "PairingsTests", dependencies: ["Advertisements", "BlueZ", "BluetoothKernel", "Cipher", "Pairings", "Recording", "Vocabulary", "Radio"], swiftSettings: strict),
        .testTarget(name: "ConfigTests", dependencies: ["Basics", "BlueZ", "Config", "Location", "PeerHarness", "Radio"], swiftSettings: strict),
        .testTarget(name: "StoreTests", dependencies: ["PeerHarness", "Storage", "Store"], exclude: ["PreviousRelease"], swiftSettings: strict),
        // The rules the sources keep: ignored errors listed with their reasons, the module graph's layers.
        .testTarget(name: "ArchitectureTests", dependencies: ["PeerHarness"], exclude: ["ignored-errors.txt"], swiftSettings: strict),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "ReplayTests", dependencies: ["Capture", "PeerHarness", "Replay", "Telemetry"], swiftSettings: strict),
        .testTarget(name: "RecorderTests", dependencies: ["Basics", "PeerHarness", "Recorder", "Recording", "Storage", "Store", "Telemetry", "Upload", "Vocabulary"], swiftSettings: strict),
        .testTarget(name: "DaemonTests", dependencies: ["BlueZ", "Config", "Daemon", "Pairings", "PeerHarness", "Recorder", "Recording", "Storage", "Store", "Telemetry", "Upload", "Vocabulary", "Run"], swiftSettings: strict),
        .testTarget(name: "PeersTests", dependencies: ["PeerHarness"], swiftSettings: strict),
        .testTarget(name: "HostTests", dependencies: ["Host", "DBus", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "ControlTests", dependencies: ["Control", "DBus", "Radio", "Vocabulary", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "UplinkTests", dependencies: ["Uplink", "Config", "MQTT", "Session", "Store", "Telemetry", "Upload", "PeerHarness"], swiftSettings: strict),
        .testTarget(name: "CommandTests", dependencies: ["Command"], swiftSettings: strict),
        .testTarget(name: "DocumentationTests", dependencies: ["CLI", "Command", "Config", "PeerHarness", "Run"], swiftSettings: strict),
        .testTarget(name: "CLITests", dependencies: ["Basics", "CLI", "Command", "Fuzzing", "Pairings", "PeerHarness", "Storage", "Store", "Vocabulary", "Run"], swiftSettings: strict),
        // The arm64 package on a virtual Pi (`make test-pi`), and power cuts
        // (`make test-power`); `make test` leaves both out.
        .testTarget(name: "PiTests", dependencies: ["Basics", "Capture", "PeerHarness", "Radio", "Vocabulary"], swiftSettings: strict),
        .testTarget(name: "PowerTests", dependencies: ["Basics", "Capture", "PeerHarness"], swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Advertisements", "Basics", "BlueZ", "BluetoothKernel", "CLI", "Capture", "Cipher", "Command", "Config", "Control", "DBus", "Daemon", "Location", "Pairings", "PeerHarness", "Recording", "Storage", "Store", "Telemetry", "Upload", "Vocabulary", "Radio", "Run"],
            exclude: ["Screenshots"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
