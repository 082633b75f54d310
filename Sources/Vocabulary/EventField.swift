/// The names of an event's details, as the event log, the `Event` signal
/// and the uploaded sample spell them.
public enum EventField: String, Sendable, Hashable, CaseIterable, Codable {
    case at, from, to, seconds, reason, missing, samples, failures
    case lostAt = "lost_at"
    case tripID = "trip_id"
    case movedTo = "moved_to"
    case fromSeq = "from_seq"
    case toSeq = "to_seq"
}
