/// Replay protection for encrypted BTHome packets: per device, the counter
/// must grow. A packet whose counter is not above the last accepted one is a
/// replay (or a duplicate copy of the same advertisement).
public struct BTHomeReplayGuard: Sendable {
    private var last: [String: UInt32] = [:]
    /// Devices remembered at most; beyond it, the device first seen longest
    /// ago is forgotten.
    public let capacity: Int
    private var order: [String] = []

    public init(capacity: Int = 1024) { self.capacity = capacity }

    /// Returns whether `counter` from `device` is new, and remembers it if so.
    public mutating func accept(_ counter: UInt32, from device: String) -> Bool {
        if let previous = last[device], counter <= previous { return false }
        if last[device] == nil {
            order.append(device)
            if order.count > capacity { last[order.removeFirst()] = nil }
        }
        last[device] = counter
        return true
    }
}
