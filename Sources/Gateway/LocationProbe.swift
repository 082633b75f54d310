package import Location
package import Vocabulary

/// Checks that the configured location source can be reached: a TCP or unix
/// connect to gpsd, or a readable NMEA device. Runs off the cooperative pool.
package struct LocationProbe {
    package var source: LocationSource
    package var timeout: Duration = .seconds(1)

    package init(source: LocationSource) { self.source = source }

    package func missing() async -> [Requirement] {
        let source = source
        let timeout = timeout
        return await Task.detached { source.isReachable(timeout: timeout) ? [] : [.location] }.value
    }
}
