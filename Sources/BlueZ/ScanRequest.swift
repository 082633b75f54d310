import Radio

/// What the recorder asked the scanner service for: the options, and where
/// sightings and events go. Kept to start again after a failed start.
struct ScanRequest: Sendable {
    var options: ScannerOptions
    var sighting: @Sendable (Sighting) -> Bool
    var event: @Sendable (ScannerEvent) async -> Void
}
