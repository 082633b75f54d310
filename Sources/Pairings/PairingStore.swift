import FoundationEssentials
import Logging
package import Storage
package import Telemetry
package import Vocabulary

/// Pairings kept in the gateway's store.
package struct PairingStore {
    package let database: Database

    package init(database: Database) { self.database = database }

    package enum Failure: Error, CustomStringConvertible {
        case notFound(Int64)
        /// The store's last pairing id is the largest there is (a store edited by hand).
        case noFreeID(last: Int64)
        package var description: String {
            switch self {
            case .notFound(let id): "no pairing with id \(id); see waymark beacons"
            case .noFreeID(let last): "the store's last pairing id is \(last): no id is left for a new pairing"
            }
        }
    }

    package func all() throws -> [Pairing] {
        try database.read { connection in
            try connection.rows("SELECT id, identity, role, label, bindkey FROM pairing ORDER BY id") { row -> Pairing? in
                let text = row.text(1) ?? ""
                guard let identity = DeviceIdentity(text) else {
                    Log.warning("pairing #\(row.integer(0)): \(text.debugDescription) is not a device identity; left out (waymark unpair \(row.integer(0)) removes it)")
                    return nil
                }
                return Pairing(id: row.integer(0), identity: identity, role: Pairing.Role(rawValue: row.text(2) ?? "") ?? .sensor,
                               label: row.text(3) ?? "", bindkey: row.text(4))
            }.compactMap { $0 }
        }
    }

    /// Each pairing's label by the id its samples carry.
    package func sensorLabels() throws -> SensorLabels {
        SensorLabels(try all().map { ($0.sensorID, $0.label) })
    }

    /// Adds (or updates, for a known identity) a pairing. There is one vehicle
    /// beacon: pairing a new one replaces the old.
    @discardableResult
    package func pair(identity: DeviceIdentity, role: Pairing.Role, label: String, bindkey: String?) throws -> Pairing {
        try database.write { connection in
            let text = SQLValue.text(identity.description)
            if role == .vehicle { try connection.run("DELETE FROM pairing WHERE role = 'vehicle' AND identity != ?", [text]) }
            // A new pairing never takes an id an earlier one had: sensors'
            // samples carry it (`pairing-N`), uploaded or queued.
            let last = try connection.scalar("""
                SELECT max(coalesce((SELECT max(id) FROM pairing), 0), coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_pairing_id'), 0))
                """)?.integer ?? 0
            // The last id comes from the store: an edited one may be the largest there is.
            guard last < Int64.max else { throw Failure.noFreeID(last: last) }
            try connection.run("""
                INSERT INTO pairing (id, identity, role, label, bindkey, created) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (identity) DO UPDATE SET role = excluded.role, label = excluded.label, bindkey = excluded.bindkey
                """, [.integer(max(last, 0) + 1), text, .text(role.rawValue), .text(label), bindkey.map(SQLValue.text) ?? .null, .real(Date().timeIntervalSince1970)])
            let id = try connection.scalar("SELECT id FROM pairing WHERE identity = ?", [text])?.integer ?? 0
            try connection.run("""
                INSERT INTO meta (key, value) VALUES ('last_pairing_id', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, [.text(String(max(last, id)))])
            return Pairing(id: id, identity: identity, role: role, label: label, bindkey: bindkey)
        }
    }

    package func unpair(_ id: Int64) throws {
        try database.write { connection in
            try connection.run("DELETE FROM pairing WHERE id = ?", [.integer(id)])
            guard connection.changes == 1 else { throw Failure.notFound(id) }
        }
    }
}
