import Location

/// Checks that the configured location source can be reached: a TCP or unix
/// connect to gpsd, or a readable NMEA device. Runs off the cooperative pool.
struct LocationProbe {
    var source: LocationSource
    var timeout: Duration = .seconds(1)

    func missing() async -> [Requirement] {
        let source = source
        let timeout = timeout
        return await Task.detached { source.isReachable(timeout: timeout) ? [] : [.location] }.value
    }
}
