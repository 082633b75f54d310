public import Telemetry
/// Merges gpsd's reports into one `Fix` per epoch. gpsd may send several TPVs
/// for one epoch (a partial one as each sentence arrives, then the full one);
/// later values win, and keys a later TPV leaves out keep earlier values.
/// SKY adds the satellite counts to the epoch it follows.
public struct GPSDFixAssembler: Sendable {
    private var current: Fix?

    public init() {}

    /// Adds a TPV; returns the epoch it closed, if any. A TPV without a time
    /// (no fix yet) closes the open epoch and is an epoch of its own.
    public mutating func add(_ tpv: Fix) -> [Fix] {
        guard tpv.time != nil else {
            return [finish(), tpv].compactMap(\.self)
        }
        guard var open = current, open.time == tpv.time else {
            let closed = finish()
            current = tpv
            return closed.map { [$0] } ?? []
        }
        open.mode = tpv.mode
        open.status = tpv.status ?? open.status
        if tpv.lat != nil {
            open.lat = tpv.lat
            open.lon = tpv.lon
        }
        open.altHAE = tpv.altHAE ?? open.altHAE
        open.altMSL = tpv.altMSL ?? open.altMSL
        open.speed = tpv.speed ?? open.speed
        open.track = tpv.track ?? open.track
        open.climb = tpv.climb ?? open.climb
        open.eph = tpv.eph ?? open.eph
        open.epv = tpv.epv ?? open.epv
        open.ept = tpv.ept ?? open.ept
        current = open
        return []
    }

    public mutating func addSky(used: Int?, seen: Int?) {
        guard var open = current else { return }
        open.satellitesUsed = used ?? open.satellitesUsed
        open.satellitesSeen = seen ?? open.satellitesSeen
        current = open
    }

    public var isOpen: Bool { current != nil }

    /// Closes the open epoch, if any.
    public mutating func finish() -> Fix? {
        defer { current = nil }
        return current
    }
}
