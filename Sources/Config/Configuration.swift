import BlueZ
public import Location
public import Logging
public import MQTT
public import Radio
public import Upload

/// Everything `waymark.conf` can set. `ConfigSchema` holds every key's
/// default, as text: `init()` applies them all, so the values written below
/// are only placeholders that nothing reads.
public struct Configuration: Sendable, Equatable {
    public struct Session: Sendable, Equatable {
        /// The OIDC issuer; discovery is at `{Issuer}/.well-known/openid-configuration`.
        public var issuer: String?
        public var clientID: String?
        /// A file holding the client secret of a confidential client.
        public var clientSecretFile: String?
        public var scopes: [String] = []
        /// Extra CA certificates (PEM) to trust for the issuer and backend.
        public var caFile: String?
    }

    public struct Backend: Sendable, Equatable {
        /// The fleet API before login; after it, the account's `api_base_url`.
        public var baseURL: String?
        /// How often settings and fleet commands are fetched, besides after
        /// every refresh and reload (with ±10 % jitter).
        public var settingsInterval: Duration = .zero
    }

    public struct Bluetooth: Sendable, Equatable {
        /// `hci0` or an adapter address; nil means the first adapter.
        public var adapter: String?
        public var scanMode: ScanMode = .auto
        /// With discovery on and no advert for this long, discovery is restarted.
        public var scanWatchdog: Duration = .zero
        /// Unpaired devices unseen this long are removed from BlueZ's cache.
        public var deviceExpiry: Duration = .zero
        public var healthInterval: Duration = .zero
    }

    public struct Location: Sendable, Equatable {
        public var source: LocationSource = .gpsd(host: "", port: 0)
        /// A gpsd connection silent this long is treated as dead.
        public var noDataTimeout: Duration = .zero
    }

    public struct Recording: Sendable, Equatable {
        /// Interruptions longer than this are reported as telemetry gaps.
        public var gapThreshold: Duration = .zero
        /// A trip ends when the vehicle beacon is unseen this long.
        public var beaconLostTimeout: Duration = .zero
        /// A trip starts after this many beacon sightings within `tripStartWindow`.
        public var tripStartSightings = 0
        public var tripStartWindow: Duration = .zero
        /// A beacon back within this time after a trip ended continues that trip.
        public var reopenWindow: Duration = .zero
        public var maxTripDuration: Duration = .zero
        /// At most one fix sample per interval.
        public var fixInterval: Duration = .zero
        public var beaconInterval: Duration = .zero
        public var sensorInterval: Duration = .zero
        /// A directory for capture files; nil for no capture.
        public var capture: String?
        public var captureMaxBytes: Int64 = 0
    }

    public struct Upload: Sendable, Equatable {
        public var batchSize = 0
        public var batchBytes: Int64 = 0
        public var batchAge: Duration = .zero
        /// When the outbox reaches this size the oldest samples are dropped (and recorded as a gap).
        public var maxQueueBytes: Int64 = 0
        public var retryCap: Duration = .zero
        /// Where samples go; each must have a sample before it leaves the outbox.
        public var sinks: [UploadSink] = []
    }

    public struct Daemon: Sendable, Equatable {
        /// How long a service may take to stop on SIGTERM before the daemon stops without it.
        public var stopTimeout: Duration = .zero
    }

    /// What `waymark health` calls healthy.
    public struct Health: Sendable, Equatable {
        /// Armed and scanning, this long without an advert is unhealthy.
        public var advertSilence: Duration = .zero
        /// A queued sample this old means the queue does not drain.
        public var queueAge: Duration = .zero
    }

    public struct MQTT: Sendable, Equatable {
        /// The brokers, tried in turn (the nodes of one cluster); empty: no MQTT.
        public var brokers: [MQTTBroker] = []
        /// `{device_id}` stands for the gateway's id.
        public var clientID = ""
        public var username: String?
        public var passwordFile: String?
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
        public var topicPrefix = ""
        public var discovery = false
        public var discoveryPrefix = ""
        public var commands = false
        public var protocolVersion = MQTTProtocol.auto
    }

    public var session = Session()
    public var backend = Backend()
    public var bluetooth = Bluetooth()
    public var location = Location()
    public var recording = Recording()
    public var upload = Upload()
    public var mqtt = MQTT()
    public var health = Health()
    public var daemon = Daemon()
    public var logLevel: Log.Priority = .info

    /// Every key at its default from `ConfigSchema`.
    public init() {
        self = Self.defaults
    }

    private init(placeholders: Void) {}

    private static let defaults: Configuration = {
        var configuration = Configuration(placeholders: ())
        for key in ConfigSchema.keys {
            let problem = key.apply(&configuration, key.defaultText)
            precondition(problem == nil, "ConfigSchema's default for \(key.section).\(key.name) is not valid: \(problem ?? "")")
        }
        return configuration
    }()
}
