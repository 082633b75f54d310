/// SQLite's `PRAGMA synchronous` level.
///
/// In WAL mode `.normal` can lose the last commits on power loss (never
/// corrupting the file); `.full` syncs the WAL on every commit, so a commit
/// that returned survives a power cut. Waymark's store uses `.full`: a sample
/// acknowledged as recorded must survive.
public enum Synchronous: String, Sendable {
    case off = "OFF", normal = "NORMAL", full = "FULL", extra = "EXTRA"
}
