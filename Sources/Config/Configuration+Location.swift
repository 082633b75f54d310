package import Location

extension Configuration.Location {
    /// The location reader's options from `[Location]`.
    package var readerOptions: LocationOptions { LocationOptions(noDataTimeout: noDataTimeout) }
}
