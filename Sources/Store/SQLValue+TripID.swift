package import Storage
package import Vocabulary

extension SQLValue {
    /// A trip id, as the `trip` table and the timelines key it.
    package static func text(_ id: TripID) -> SQLValue { .text(id.rawValue) }
}
