import Foundation
@testable import MQTT
import Telemetry
import Testing

/// The car's position on `location`: what JSON cannot hold is left out.
struct TrackerAttributesTests {
    @Test func aValueThatIsNotFiniteIsLeftOutAndThePositionStays() throws {
        var fix = Fix()
        (fix.mode, fix.lat, fix.lon, fix.eph, fix.speed, fix.track, fix.altMSL, fix.altHAE) = (3, 48.2, 8.4, .nan, .infinity, -.infinity, .nan, 1e300)
        let attributes = try #require(TrackerAttributes(fix))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONBytes.encode(attributes))) as? [String: Double])
        #expect(json == ["latitude": 48.2, "longitude": 8.4, "altitude": 1e300])
        fix.lat = .nan
        #expect(TrackerAttributes(fix) == nil)
    }
}
