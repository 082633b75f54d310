import BluetoothKernel
import Glibc
import Testing

/// The management socket's own settings.
struct ManagementSocketTests {
    /// The kernel drops events that do not fit; with root (as the tests run,
    /// and with CAP_NET_ADMIN, as the channel needs) the buffer goes past
    /// `net.core.rmem_max`, 208 KiB by default.
    @Test func theReceiveBufferIsReservedPastTheSystemsMaximum() {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let socket = ManagementSocket(adopting: pair[0])
        let before = socket.receiveBuffer
        socket.reserveReceiveBuffer()
        #expect(before < ManagementSocket.receiveBufferRequest)
        #expect(socket.receiveBuffer == 2 * ManagementSocket.receiveBufferRequest, "the kernel doubles what it is asked for")
    }
}
