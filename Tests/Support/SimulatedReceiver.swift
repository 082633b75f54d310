import Foundation
import Synchronization

/// A GPS receiver on a pty: one RMC + GGA epoch every 50 ms, at a fixed
/// position (48.217558333 N, 8.414495 E, 765.8 m, 1.5 kn east), with or
/// without a fix, until stopped.
public final class SimulatedReceiver: Sendable {
    public let terminal: PseudoTerminal
    private let fixing = Atomic<Bool>(true)

    /// Whether the epochs it sends carry a fix.
    public var hasFix: Bool {
        get { fixing.load(ordering: .relaxed) }
        set { fixing.store(newValue, ordering: .relaxed) }
    }
    private let stopped = Atomic<Bool>(false)

    public init() throws {
        terminal = try PseudoTerminal()
        Thread.detachNewThread { [self] in
            var second = 0
            while !stopped.load(ordering: .relaxed) {
                let time = String(format: "12%02d%02d.00", second / 60 % 60, second % 60)
                if fixing.load(ordering: .relaxed) {
                    terminal.send(PseudoTerminal.sentence("GPRMC,\(time),A,4813.0535,N,00824.8697,E,1.5,90.0,301126,,,A"))
                    terminal.send(PseudoTerminal.sentence("GPGGA,\(time),4813.0535,N,00824.8697,E,1,08,1.0,765.8,M,47.4,M,,"))
                } else {
                    terminal.send(PseudoTerminal.sentence("GPRMC,\(time),V,,,,,,,301126,,,N"))
                    terminal.send(PseudoTerminal.sentence("GPGGA,\(time),,,,,0,00,99.9,,,,,,"))
                }
                second += 1
                usleep(50_000)
            }
        }
    }

    deinit { stop() }

    public func stop() { stopped.store(true, ordering: .relaxed) }
}
