internal import Glibc

extension LocationSource {
    /// Whether the source can be opened now: gpsd accepts a connection, or
    /// the device is readable. Blocking for at most `timeout`.
    public func isReachable(timeout: Duration) -> Bool {
        if case .nmea(let device, _) = self { return access(device, R_OK) == 0 }
        guard let fd = try? SocketConnector.connect(to: self, timeout: timeout) else { return false }
        close(fd)
        return true
    }
}
