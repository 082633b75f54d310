/// Runs `body`, failing with `PeerError.timedOut` if it takes longer than
/// `limit`, so that a broken peer fails a test instead of hanging the suite.
public func withDeadline<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw PeerError.timedOut(what) }
        return value
    }
}

extension AsyncStream where Element: Sendable {
    /// The next element, or a `timedOut` failure after `limit`.
    public func next(within limit: Duration, _ what: String) async throws -> Element {
        let iterator = UncheckedBox(makeAsyncIterator())
        return try await withDeadline(limit, what) {
            guard let element = await iterator.value.next() else { throw PeerError.timedOut("\(what) (stream ended)") }
            return element
        }
    }
}

extension AsyncStream where Element: Sendable {
    /// The next element matching `predicate`, or a `timedOut` failure after `limit`.
    public func nextMatching(within limit: Duration, _ predicate: @escaping @Sendable (Element) -> Bool) async throws -> Element {
        let iterator = UncheckedBox(makeAsyncIterator())
        return try await withDeadline(limit, "a matching element") {
            while let element = await iterator.value.next() {
                if predicate(element) { return element }
            }
            throw PeerError.timedOut("a matching element (stream ended)")
        }
    }
}

/// Lets a test hand a non-Sendable iterator to one child task at a time.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
