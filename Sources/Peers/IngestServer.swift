import Foundation

/// The fleet backend for tests (`Templates/ingest_server.py`): account,
/// settings and sample ingest, with JWT expiry checked on every call.
public final class IngestServer: @unchecked Sendable {
    public let port: Int
    public let process: ChildProcess
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `port` lets a test bring the server back where it was, after an outage.
    public init(directory: TemporaryDirectory, port: Int? = nil) throws {
        self.port = try port ?? FreePort.tcp()
        process = try ChildProcess("/usr/bin/python3", [PeerTemplates.path("ingest_server.py"), String(self.port)],
                                   aptPackage: "python3", logPath: directory.file("ingest-\(self.port)-\(UUID().uuidString.prefix(4)).log"))
        try FreePort.waitForListener(port: self.port, process: process)
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Replaces what `GET /v1/settings` answers.
    public func setSettings(_ json: String) throws {
        _ = try send("POST", "/_control/settings", Data(json.utf8))
    }

    /// Faults to inject into sample uploads (see the script's header).
    public func setFaults(_ json: String) throws {
        _ = try send("POST", "/_control/faults", Data(json.utf8))
    }

    public struct Summary: Decodable, Sendable {
        public var stored: Int
        /// Stored samples per kind (fix, beacon, sensor, event).
        public var kinds: [String: Int]
        public var duplicates: Int
        public var conflicts: Int
        public var posts: Int
        /// Samples in each batch stored, in the order they came.
        public var batch_sizes: [Int]
        public var keys: Int
        public var max_seq: Int
    }

    public func summary() throws -> Summary {
        try JSONDecoder().decode(Summary.self, from: try send("GET", "/_control/summary"))
    }

    /// Sequence numbers 1...upto the server does not hold (at most 100).
    public func missing(upto: Int) throws -> [Int] {
        try JSONDecoder().decode([Int].self, from: try send("GET", "/_control/missing?upto=\(upto)"))
    }

    /// The stored samples of one kind, in sequence order, as the JSON array the server holds.
    public func samples(kind: String) throws -> [[String: Any]] {
        (try JSONSerialization.jsonObject(with: try send("GET", "/_control/samples?kind=\(kind)")) as? [[String: Any]]) ?? []
    }

    /// Every stored sample with its device id and sequence number, in (device, seq) order.
    public func stored() throws -> [(device: String, seq: Int, sample: [String: Any])] {
        let rows = (try JSONSerialization.jsonObject(with: try send("GET", "/_control/stored")) as? [[Any]]) ?? []
        return rows.compactMap { row in
            guard row.count == 3, let device = row[0] as? String, let seq = row[1] as? Int, let sample = row[2] as? [String: Any] else { return nil }
            return (device, seq, sample)
        }
    }

    /// Every request the server saw, as (method, path).
    public func requests() throws -> [[String]] {
        let data = try send("GET", "/_control/requests")
        return (try JSONSerialization.jsonObject(with: data) as? [[String]]) ?? []
    }

    func send(_ method: String, _ path: String, _ body: Data = Data()) throws -> Data {
        try FreePort.exchange(port: port, method, path, body)
    }
}
