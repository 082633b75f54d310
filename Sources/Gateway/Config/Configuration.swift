public import BlueZ
public import Location
public import Logging

/// Everything `waymark.conf` can set. The defaults here are the documented
/// defaults; `ConfigSchema` lists every key with its default text.
public struct Configuration: Sendable, Equatable {
    public struct Session: Sendable, Equatable {
        /// The OIDC issuer; discovery is at `{Issuer}/.well-known/openid-configuration`.
        public var issuer: String?
        public var clientID: String?
        /// A file holding the client secret of a confidential client.
        public var clientSecretFile: String?
        public var scopes: [String] = ["openid"]
        /// Extra CA certificates (PEM) to trust for the issuer and backend.
        public var caFile: String?
    }

    public struct Backend: Sendable, Equatable {
        /// The fleet API before login; after it, the account's `api_base_url`.
        public var baseURL: String?
        /// How often settings and fleet commands are fetched, besides after
        /// every refresh and reload (with ±10 % jitter).
        public var settingsInterval: Duration = .seconds(15 * 60)
    }

    public struct Bluetooth: Sendable, Equatable {
        /// `hci0` or an adapter address; nil means the first adapter.
        public var adapter: String?
        public var scanMode: ScanMode = .auto
        /// With discovery on and no advert for this long, discovery is restarted.
        public var scanWatchdog: Duration = .seconds(60)
        /// Unpaired devices unseen this long are removed from BlueZ's cache.
        public var deviceExpiry: Duration = .seconds(300)
    }

    public struct Location: Sendable, Equatable {
        public var source: LocationSource = .gpsd(host: "127.0.0.1", port: 2947)
        /// A gpsd connection silent this long is treated as dead.
        public var noDataTimeout: Duration = .seconds(10)
    }

    public struct Recording: Sendable, Equatable {
        /// Interruptions longer than this are reported as telemetry gaps.
        public var gapThreshold: Duration = .seconds(60)
        /// A trip ends when the vehicle beacon is unseen this long.
        public var beaconLostTimeout: Duration = .seconds(120)
        /// A trip starts after this many beacon sightings within `tripStartWindow`.
        public var tripStartSightings = 3
        public var tripStartWindow: Duration = .seconds(30)
        /// A beacon back within this time after a trip ended continues that trip.
        public var reopenWindow: Duration = .seconds(300)
        public var maxTripDuration: Duration = .seconds(12 * 3600)
        /// At most one fix sample per interval.
        public var fixInterval: Duration = .seconds(1)
        public var beaconInterval: Duration = .seconds(10)
        public var sensorInterval: Duration = .seconds(60)
    }

    public struct Upload: Sendable, Equatable {
        public var batchSize = 500
        public var batchBytes: Int64 = 512 << 10
        public var batchAge: Duration = .seconds(30)
        /// When the outbox reaches this size the oldest samples are dropped (and recorded as a gap).
        public var maxQueueBytes: Int64 = 256 << 20
        public var retryCap: Duration = .seconds(15 * 60)
    }

    public var session = Session()
    public var backend = Backend()
    public var bluetooth = Bluetooth()
    public var location = Location()
    public var recording = Recording()
    public var upload = Upload()
    public var logLevel: Log.Priority = .info

    public init() {}
}
