import BluetoothKernel
import Foundation
import Testing

/// A command on the management channel, with a socketpair as the kernel.
struct ManagementCommandTests {
    /// Our end of a fresh pair, and the kernel's.
    static func channel() throws -> (ManagementSocket, kernel: Int32) {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
        return (ManagementSocket(adopting: pair[0]), pair[1])
    }

    static func write(_ bytes: [UInt8], to fd: Int32) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    }

    @Test func aCommandIsSentInTheKernelsLayoutAndAnsweredByItsOwnReply() async throws {
        let (socket, kernel) = try Self.channel()
        defer { close(kernel) }
        let kernelSide = Task.detached { () -> [UInt8] in
            var request = [UInt8](repeating: 0, count: 64)
            let count = recv(kernel, &request, request.count, 0)
            // What passes by first: an advert, the power change itself, a reply
            // for another controller and one for another command.
            Self.write(DeviceFound(address: 1, addressType: 1, rssi: -60, flags: 0, data: [2, 1, 6]).encoded(index: 2, monitorHandle: nil), to: kernel)
            Self.write([0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00], to: kernel)
            Self.write([0x01, 0x00, 0x07, 0x00, 0x03, 0x00, 0x05, 0x00, 0x00], to: kernel)
            Self.write([0x02, 0x00, 0x02, 0x00, 0x03, 0x00, 0x06, 0x00, 0x0A], to: kernel)
            Self.write([0x02, 0x00, 0x02, 0x00, 0x03, 0x00, 0x05, 0x00, 0x0A], to: kernel)
            return Array(request.prefix(max(count, 0)))
        }
        let status = try socket.command(0x0005, controller: 2, parameters: [0], timeout: .seconds(20))
        // Set Powered (0x0005) for hci2 with one parameter byte, off.
        #expect(await kernelSide.value == [0x05, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00])
        #expect(status == 0x0A)
    }

    @Test func aCommandWithNoReplyTimesOutAndACommandOnAClosedChannelFails() throws {
        let (socket, kernel) = try Self.channel()
        #expect(throws: ManagementSocketError.timedOut(opcode: 5)) {
            try socket.command(0x0005, controller: 0, parameters: [1], timeout: .milliseconds(20))
        }
        close(kernel)
        #expect(throws: ManagementSocketError.self) {
            try socket.command(0x0005, controller: 0, parameters: [1], timeout: .seconds(20))
        }
    }
}
