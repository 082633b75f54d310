package import Location

package extension Configuration.Location {
    /// The location reader's options from `[Location]`.
    package var readerOptions: LocationOptions { LocationOptions(noDataTimeout: noDataTimeout) }
}
