import Dispatch
import Foundation
import Glibc
import Host
import Testing

/// The sd_notify datagrams as systemd's side of `$NOTIFY_SOCKET` receives them.
struct SystemdNotifierTests {
    /// A datagram socket bound where systemd would listen.
    final class Listener: @unchecked Sendable {
        let fd: Int32
        let path: String

        /// `abstract`: in the abstract namespace, named with a leading `@`.
        init(abstract: Bool) throws {
            path = abstract ? "@waymark-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                            : NSTemporaryDirectory() + "waymark-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(path.utf8)
            if abstract { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = byte }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            try #require(fd >= 0 && bound == 0, "binding \(path): errno \(errno)")
            // A broken notifier fails the test instead of hanging it.
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit {
            close(fd)
            if !path.hasPrefix("@") { unlink(path) }
        }

        /// The next datagram, read off the cooperative pool; nil after 10 s of silence.
        func next() async -> String? {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var buffer = [UInt8](repeating: 0, count: 512)
                    let count = recv(self.fd, &buffer, buffer.count, 0)
                    continuation.resume(returning: count >= 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil)
                }
            }
        }
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    @Test(arguments: [false, true])
    func readyThenAWatchdogPingEachHalfPeriodThenStopping(abstract: Bool) async throws {
        let listener = try Listener(abstract: abstract)
        let told = Flag()
        let service = SystemdNotifierService(watchdogMicroseconds: 20_000, socket: listener.path) { told.set() }
        await service.start()
        #expect(await listener.next() == "READY=1\nSTATUS=running")
        #expect(told.isSet)
        let running = Task { await service.run() }
        #expect(await listener.next() == "WATCHDOG=1")
        #expect(await listener.next() == "WATCHDOG=1")
        running.cancel()
        await running.value
        var last: String?
        while let datagram = await listener.next() {
            last = datagram
            if datagram != "WATCHDOG=1" { break }
        }
        #expect(last == "STOPPING=1")
    }

    @Test func withoutAWatchdogNothingIsSentBetweenReadyAndStopping() async throws {
        let listener = try Listener(abstract: false)
        let service = SystemdNotifierService(watchdogMicroseconds: nil, socket: listener.path)
        await service.start()
        #expect(await listener.next() == "READY=1\nSTATUS=running")
        let running = Task { await service.run() }
        try await Task.sleep(for: .milliseconds(50))
        running.cancel()
        await running.value
        #expect(await listener.next() == "STOPPING=1")
    }
}
