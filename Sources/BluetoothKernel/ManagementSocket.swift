internal import CBluetooth
internal import CSystem
public import Dispatch
internal import Glibc
import Synchronization

/// A socket on the kernel's Bluetooth management channel, read on a
/// dispatch queue as events arrive (no polling).
///
/// Only a socket bound with `CAP_NET_ADMIN` is trusted; the kernel sends
/// device-found events to trusted sockets only, so `openControlChannel`
/// refuses to pretend without it.
public final class ManagementSocket: Sendable {
    let descriptor: Int32
    private let source = Mutex<ReadSource?>(nil)
    private let backlog = Backlog()

    /// Whether the last read filled its whole batch, so more events were
    /// queued behind it: read from `onAdvert`, whether the reader is behind.
    public var isBehind: Bool { backlog.full.load(ordering: .relaxed) }

    /// Shared with the read handler, which must not hold the socket.
    private final class Backlog: Sendable {
        let full = Atomic<Bool>(false)
    }

    /// Dispatch sources are thread-safe, but not marked Sendable.
    private final class ReadSource: @unchecked Sendable {
        let source: any DispatchSourceRead
        init(_ source: any DispatchSourceRead) { self.source = source }
    }

    /// Adopts a descriptor that delivers one event per read (the control
    /// channel, or a `SOCK_SEQPACKET` socketpair replaying recorded events).
    public init(adopting descriptor: Int32) {
        self.descriptor = descriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { _ = Glibc.close(descriptor) }

    /// Opens and binds the control channel for every controller.
    public static func openControlChannel() throws(ManagementSocketError) -> ManagementSocket {
        guard ProcessCapabilities.effective(contains: ProcessCapabilities.netAdmin) else { throw .notPermitted }
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            throw errno == EAFNOSUPPORT ? .noBluetooth : .failed(call: "socket", errno: errno)
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_CONTROL)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else {
            let error = errno
            _ = Glibc.close(fd)
            throw .failed(call: "bind", errno: error)
        }
        let channel = ManagementSocket(adopting: fd)
        channel.reserveReceiveBuffer()
        return channel
    }

    /// What the kernel queues for this socket before it drops events
    /// without a word: by default about 200 KiB, under a second of busy air
    /// on every controller. Asks for `receiveBufferRequest` (past
    /// `net.core.rmem_max` with `CAP_NET_ADMIN`, which the control channel
    /// needs anyway); memory is taken only while events wait unread.
    public func reserveReceiveBuffer() {
        var size = Int32(Self.receiveBufferRequest)
        let length = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) != 0 {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
    }

    /// 4 MiB, which the kernel doubles for its bookkeeping.
    public static var receiveBufferRequest: Int { 4 << 20 }

    /// The receive buffer's size, as the kernel reports it.
    public var receiveBuffer: Int {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, &length) == 0 ? Int(size) : 0
    }

    /// Reads events on `queue` until `cancel()`: each advert goes to
    /// `onAdvert` with its data still in the receive buffer, each other
    /// well-formed event to `onEvent`, each malformed one to `onMalformed`;
    /// a read error other than "try again" ends reading and goes to `onFailure`.
    public func start(
        queue: DispatchQueue,
        onAdvert: @escaping @Sendable (FoundAdvert) -> Void,
        onEvent: @escaping @Sendable (_ index: UInt16, ManagementEvent) -> Void,
        onMalformed: @escaping @Sendable (ManagementEventError) -> Void,
        onFailure: @escaping @Sendable (_ errno: Int32) -> Void
    ) {
        let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let (fd, backlog) = (descriptor, backlog)
        // Up to 64 events per system call, each slot large enough for an
        // extended advert's data and its header.
        let slot = 2048, slots = 64
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: slot * slots, alignment: 8)
        let lengths = UnsafeMutableBufferPointer<Int32>.allocate(capacity: slots)
        reader.setEventHandler {
            while true {
                let count = csystem_recv_datagrams(
                    fd, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(slot), UInt32(slots), lengths.baseAddress)
                if count < 0 {
                    let error = errno
                    if error == EINTR { continue }
                    if error != EAGAIN && error != EWOULDBLOCK {
                        reader.cancel()
                        onFailure(error)
                    }
                    return
                }
                // A full batch means more are queued: the reader is behind.
                backlog.full.store(Int(count) == slots, ordering: .relaxed)
                for index in 0..<Int(count) {
                    let length = Int(lengths[index])
                    // No event is empty: a zero-length read is the end of the stream.
                    if length == 0 {
                        reader.cancel()
                        onFailure(0)
                        return
                    }
                    let start = index * slot
                    do throws(ManagementEventError) {
                        guard length > 0 else { throw .tooLong(limit: slot) }
                        switch try ManagementEvent.frame(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)])) {
                        case .advert(let advert): onAdvert(advert)
                        case .event(let controller, let event): onEvent(controller, event)
                        }
                    } catch {
                        onMalformed(error)
                    }
                }
                if count < slots { return }
            }
        }
        reader.setCancelHandler {
            buffer.deallocate()
            lengths.deallocate()
        }
        source.withLock { $0 = ReadSource(reader) }
        reader.resume()
    }

    /// Stops reading; the descriptor is closed when the socket is released.
    public func cancel() {
        source.withLock { $0?.source.cancel(); $0 = nil }
    }
}
