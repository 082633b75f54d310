import Location

extension Configuration.Location {
    /// The location reader's options from `[Location]`.
    var readerOptions: LocationOptions { LocationOptions(noDataTimeout: noDataTimeout) }
}
