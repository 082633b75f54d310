internal import Dispatch
internal import Glibc

extension ManagementSocket {
    /// `MGMT_OP_SET_POWERED`: one parameter byte, 1 for on.
    static let setPoweredOpcode: UInt16 = 0x0005

    /// Powers controller `hciN` off and on again through the kernel, below
    /// bluetoothd: the recovery step for a controller that bluetoothd's own
    /// power cycle did not bring back. Each half waits up to `timeout` for the
    /// kernel's reply; bluetoothd follows the power changes as they come.
    public static func powerCycle(controller index: UInt16, timeout: Duration = .seconds(5)) async throws(ManagementSocketError) {
        try await onControlChannel { channel throws(ManagementSocketError) in
            for on: UInt8 in [0, 1] {
                _ = try channel.request(setPoweredOpcode, controller: index, parameters: [on], timeout: timeout)
            }
        }
    }

    /// Runs `work` with a control channel of its own, on a dispatch thread
    /// rather than a task's (its commands block while they wait for replies).
    static func onControlChannel<T: Sendable>(
        _ work: @escaping @Sendable (ManagementSocket) throws(ManagementSocketError) -> T
    ) async throws(ManagementSocketError) -> T {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<T, ManagementSocketError>, Never>) in
            DispatchQueue.global().async {
                done.resume(returning: Result { () throws(ManagementSocketError) in try work(try openControlChannel()) })
            }
        }
        return try result.get()
    }

    /// Sends one command and waits for its reply: its return parameters on
    /// success, `refused` with the kernel's status otherwise.
    func request(_ opcode: UInt16, controller: UInt16, parameters: [UInt8], timeout: Duration) throws(ManagementSocketError) -> [UInt8] {
        let (status, returned) = try reply(opcode, controller: controller, parameters: parameters, timeout: timeout)
        guard status == 0 else { throw .refused(opcode: opcode, status: status) }
        return returned
    }

    /// Sends one command and waits for its reply, returning its status.
    /// Not for a socket that `start` reads: the reply would go there.
    public func command(_ opcode: UInt16, controller: UInt16, parameters: [UInt8], timeout: Duration) throws(ManagementSocketError) -> UInt8 {
        try reply(opcode, controller: controller, parameters: parameters, timeout: timeout).status
    }

    private func reply(_ opcode: UInt16, controller: UInt16, parameters: [UInt8], timeout: Duration) throws(ManagementSocketError) -> (status: UInt8, returned: [UInt8]) {
        var packet = [UInt8]()
        for field in [opcode, controller, UInt16(parameters.count)] { packet += [UInt8(field & 0xff), UInt8(field >> 8)] }
        packet += parameters
        let sent = packet.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == packet.count else { throw .failed(call: "send", errno: errno) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            let left = clock.now.duration(to: deadline).components
            guard left.seconds >= 0, left.seconds > 0 || left.attoseconds > 0 else { throw .timedOut(opcode: opcode) }
            var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, Int32(clamping: left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1))
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw .failed(call: "poll", errno: errno) }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { throw .failed(call: "recv", errno: count == 0 ? 0 : errno) }
            // Other events (the power change itself, adverts) pass by.
            let reply = buffer.withUnsafeBytes { try? ManagementEvent.decode(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if let reply, reply.index == controller, case .commandReply(opcode, let status, let returned) = reply.event { return (status, returned) }
        }
    }
}
