package import Advertisements
package import Radio
package import Recording
package import Vocabulary

/// The paired devices as the recorder matches sightings against them. The
/// one place where an advert is decoded with its pairing's bindkey.
package struct PairedDevices: Sendable {
    package let byIdentity: [DeviceIdentity: Pairing]
    /// BTHome encryption keys by advertiser address (its 48 bits): an address
    /// pairing's own, or a `bthome:MAC` pairing's, whose MAC is the address.
    package let bindkeys: [UInt64: [UInt8]]
    /// Turns private addresses into the identities of `irk:` pairings.
    package let resolver: PrivateAddressResolver

    package init(_ pairings: [Pairing]) {
        byIdentity = Dictionary(pairings.map { ($0.identity, $0) }) { $1 }
        bindkeys = pairings.reduce(into: [:]) { keys, pairing in
            guard let key = pairing.bindkey.flatMap(Advertisement.parseHex) else { return }
            if let address = pairing.identity.advertiserAddress { keys[address.value] = key }
        }
        resolver = PrivateAddressResolver(pairings.compactMap { pairing in pairing.irk.map { (pairing.identity, $0) } })
    }

    /// What a passive scan watches for; nil (everything) when an address
    /// pairing cannot be told by its adverts' content.
    package var monitorPatterns: [MonitorPattern]? {
        let patterns = byIdentity.values.map(\.monitorPattern)
        guard !patterns.contains(nil) else { return nil }
        return Array(Set(patterns.compactMap { $0 })).sorted { $0.content.lexicographicallyPrecedes($1.content) }
    }

    package var vehicles: Int { byIdentity.values.filter { $0.role == .vehicle }.count }
    package var sensors: Int { byIdentity.values.filter { $0.role == .sensor }.count }

    /// A paired device's sighting as an observation; nil for strangers.
    /// `clock` is read only for a paired device: strangers in busy air cost no clock reading.
    package func observation(_ sighting: Sighting, at clock: () -> Double) -> Observation? {
        match(sighting, at: clock)?.observation
    }

    /// The pairing a sighting comes from, by an advert's identity, its
    /// address, or its private address resolved by an IRK; nil for strangers.
    package func pairing(of sighting: Sighting, adverts: [Advertisement]) -> Pairing? {
        var identities = adverts.compactMap(\.identity) + [.address(of: sighting.address)]
        if sighting.address.kind != .public, let resolved = resolver.identity(of: sighting.address) { identities.append(resolved) }
        return identities.lazy.compactMap({ byIdentity[$0] }).first
    }

    /// The pairing a sighting comes from, and the sighting as its observation.
    package func match(_ sighting: Sighting, at clock: () -> Double) -> (pairing: Pairing, observation: Observation)? {
        // Decoded without a `DecodedSighting`, whose timestamp would read the clock for every stranger.
        let adverts = DecodedSighting.adverts(of: sighting, bindkeys: bindkeys)
        guard let pairing = pairing(of: sighting, adverts: adverts) else { return nil }
        switch pairing.role {
        case .vehicle:
            return (pairing, .vehicle(rssi: sighting.rssi, at: clock()))
        case .sensor:
            guard let advert = adverts.first(where: { $0.identity != nil }) ?? adverts.first else { return nil }
            return (pairing, .sensor(id: pairing.sensorID, advert: advert, at: clock()))
        }
    }
}
