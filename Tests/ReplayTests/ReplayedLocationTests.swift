import Capture
import PeerHarness
@testable import Replay
import Telemetry
import Testing

/// A capture's location lines back into fixes, one per epoch, as the live reader makes them.
struct ReplayedLocationTests {
    static func nmea(_ body: String) -> LocationLine {
        LocationLine(speaks: .nmea, bytes: Array(PseudoTerminal.sentence(body).utf8))
    }

    static let epoch1 = [nmea("GPRMC,120000.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A"),
                         nmea("GPGGA,120000.00,4813.0535,N,00824.8697,E,2,08,1.0,765.8,M,47.4,M,,")]
    static let epoch2 = nmea("GPRMC,120001.00,A,4813.0540,N,00824.8700,E,10.0,90.0,301126,,,A")

    @Test func anEpochClosesWhenTheNextBeginsOrWhenItsLinesSettle() {
        var location = ReplayedLocation(settle: 0.3)
        #expect(location.settleDeadline == nil, "no epoch open")
        let first = Self.epoch1.enumerated().flatMap { location.add($0.element, at: 10 + Double($0.offset) * 0.01) }
        #expect(first.isEmpty, "the epoch is still open")
        #expect(location.settleDeadline == 10.31)
        let closed = location.add(Self.epoch2, at: 11)
        #expect(closed.count == 1)
        #expect(closed.first?.lat == 48.217558333333336 && closed.first?.altMSL == 765.8, "both lines of the epoch in one fix")
        let last = location.finish()
        #expect(last?.lat != nil, "the open epoch, closed by its settle time")
    }

    @Test func aLineThatDoesNotParseAddsNothingAndClosesNothing() {
        var location = ReplayedLocation(settle: 0.3)
        _ = location.add(Self.epoch1[0], at: 10)
        for bytes in [Array("$GPRMC,broken*00".utf8), [0xFF, 0x00, 0x24], [UInt8](repeating: 0x2C, count: 5000)] {
            #expect(location.add(LocationLine(speaks: .nmea, bytes: bytes), at: 10.1).isEmpty)
            #expect(location.add(LocationLine(speaks: .gpsd, bytes: bytes), at: 10.1).isEmpty)
        }
        #expect(location.add(Self.epoch2, at: 11).count == 1, "the first epoch is whole")
    }
}
