/// The daemon's one policy for store and bus calls that must not stop it:
/// what failed, and why, goes to the journal; a read falls back to a value
/// that keeps the daemon going. What was being done is said in `what`.
public enum BestEffort {
    public static func read<T>(_ what: @autoclosure () -> String, or fallback: T, _ body: () throws -> T) -> T {
        do { return try body() } catch {
            Log.error("cannot read \(what()): \(error)")
            return fallback
        }
    }

    public static func write(_ what: @autoclosure () -> String, _ body: () throws -> Void) {
        do { try body() } catch { Log.error("cannot \(what()): \(error)") }
    }
}
