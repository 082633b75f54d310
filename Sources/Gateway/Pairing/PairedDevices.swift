import Advertisements
import BlueZ
import Recording

/// The paired devices as the recorder matches sightings against them. The
/// one place where an advert is decoded with its pairing's bindkey.
struct PairedDevices: Sendable {
    let byIdentity: [String: Pairing]
    /// BTHome encryption keys by advertiser address (upper case): an address
    /// pairing's own, or a `bthome:MAC` pairing's, whose MAC is the address.
    let bindkeys: [String: [UInt8]]

    init(_ pairings: [Pairing]) {
        byIdentity = Dictionary(pairings.map { ($0.identity, $0) }) { $1 }
        bindkeys = pairings.reduce(into: [:]) { keys, pairing in
            guard let key = pairing.bindkey.flatMap(Advertisement.parseHex) else { return }
            for prefix in ["address:", "bthome:"] where pairing.identity.hasPrefix(prefix) {
                keys[pairing.identity.dropFirst(prefix.count).uppercased()] = key
            }
        }
    }

    var vehicles: Int { byIdentity.values.filter { $0.role == .vehicle }.count }
    var sensors: Int { byIdentity.values.filter { $0.role == .sensor }.count }

    /// A paired device's sighting as an observation; nil for strangers.
    /// `clock` is read only for a paired device: strangers in busy air cost no clock reading.
    func observation(_ sighting: Sighting, at clock: () -> Double) -> Observation? {
        let decoded = DecodedSighting(sighting, bindkeys: bindkeys)
        let identities = decoded.adverts.compactMap(\.identity) + ["address:" + sighting.address.uppercased()]
        guard let pairing = identities.lazy.compactMap({ byIdentity[$0] }).first else { return nil }
        switch pairing.role {
        case .vehicle:
            return .vehicle(rssi: sighting.rssi, at: clock())
        case .sensor:
            guard let advert = decoded.adverts.first(where: { $0.identity != nil }) ?? decoded.adverts.first else { return nil }
            return .sensor(id: "pairing-\(pairing.id)", advert: advert, at: clock())
        }
    }
}
