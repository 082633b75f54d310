extension StringProtocol {
    public func trimmingWhitespace() -> String {
        var start = startIndex, end = endIndex
        while start < end, self[start].isWhitespace { start = index(after: start) }
        while end > start, self[index(before: end)].isWhitespace { end = index(before: end) }
        return String(self[start..<end])
    }

    /// Quoted for a one-line error message: at most 60 characters of it.
    public var quotedForMessage: String {
        count > 60 ? String(prefix(60)).debugDescription + "…" : String(self).debugDescription
    }
}
