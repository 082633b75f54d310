internal import Dispatch
package import Vocabulary

/// Checks that the configured location source can be reached: a TCP or unix
/// connect to gpsd, or a readable NMEA device. Runs off the cooperative pool.
package struct LocationProbe {
    package var source: LocationSource
    package var timeout: Duration = .seconds(1)

    package init(source: LocationSource) { self.source = source }

    package func missing() async -> [Requirement] {
        let (source, timeout) = (source, timeout)
        // The connect blocks for up to `timeout`: on a Dispatch thread, not one of the pool's few.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: source.isReachable(timeout: timeout) ? [] : [.location]) }
        }
    }
}
