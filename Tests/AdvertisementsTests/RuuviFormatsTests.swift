@testable import Advertisements
import Testing
import Vocabulary

/// Ruuvi's older and newer formats, from vectors encoded from Ruuvi's
/// format documents: each field at its extremes and at "not available".
struct RuuviFormatsTests {
    static func decoded(_ hex: String) -> Advertisement {
        AdvertisementDecoder.decode(companyID: 0x0499, Advertisement.parseHex(hex) ?? [])
    }

    @Test func formatThreeGivesEveryFieldOfOlderTags() throws {
        guard case .ruuviV1(let r) = Self.decoded("03170145355803E804E705E60886") else { Issue.record("not format 3"); return }
        #expect(r.humidityPercent == 11.5 && r.temperatureCelsius == 1.69 && r.pressurePascal == 63_656)
        #expect(r.accelerationG == RuuviReading.Acceleration(x: 1.0, y: 1.255, z: 1.51))
        #expect(r.batteryVolts == 2.182)
        // The sign is the temperature byte's top bit, not two's complement.
        guard case .ruuviV1(let cold) = Self.decoded("03C8FF63FFFF7FFF7FFF7FFFFFFF") else { Issue.record("not format 3"); return }
        #expect(cold.temperatureCelsius == -127.99 && cold.humidityPercent == 100 && cold.pressurePascal == 115_535)
        #expect(cold.accelerationG == RuuviReading.Acceleration(x: 32.767, y: 32.767, z: 32.767) && cold.batteryVolts == 65.535)
        guard case .ruuviV1(let low) = Self.decoded("0300006300008000800080000000") else { Issue.record("not format 3"); return }
        #expect(low.temperatureCelsius == 0.99 && low.pressurePascal == 50_000 && low.accelerationG.x == -32.768 && low.batteryVolts == 0)
        // Hundredths over 99 were never encoded: that temperature is unknown, the rest stands.
        guard case .ruuviV1(let odd) = Self.decoded("03170164355803E804E705E60886") else { Issue.record("not format 3"); return }
        #expect(odd.temperatureCelsius == nil && odd.humidityPercent == 11.5)
        #expect(Self.decoded("03170145355803E804E705E60886").identity == nil, "format 3 carries no MAC")
    }

    @Test func formatSixGivesEveryFieldOfRuuviAirsLegacyAdvert() throws {
        guard case .ruuviAir(let r) = Self.decoded("06170C5668C79E007000C90501D9FFCD004C884F") else { Issue.record("not format 6"); return }
        #expect(r.dataFormat == "6" && r.temperatureCelsius == 29.5 && r.humidityPercent == 55.3 && r.pressurePascal == 101_102)
        #expect(r.pm2_5 == 11.2 && r.pm1 == nil && r.pm4 == nil && r.pm10 == nil && r.co2PPM == 201)
        #expect(r.vocIndex == 10 && r.noxIndex == 2 && r.illuminanceLux == 13_026.67 && r.measurementSequence == 205)
        #expect(!r.calibrating && r.mac == "4C:88:4F")
        #expect(Self.decoded("06170C5668C79E007000C90501D9FFCD004C884F").identity == nil, "half a MAC tells no device apart")
        guard case .ruuviAir(let high) = Self.decoded("067FFF9C40FFFE27109C40FAFAFEFFFF074C8F4F") else { Issue.record("not format 6"); return }
        #expect(high.temperatureCelsius == 163.835 && high.humidityPercent == 100 && high.pressurePascal == 115_534 && high.pm2_5 == 1000)
        #expect(high.co2PPM == 40_000 && high.vocIndex == 500 && high.noxIndex == 500 && high.illuminanceLux == 65_535 && high.measurementSequence == 255)
        #expect(high.calibrating)
        guard case .ruuviAir(let low) = Self.decoded("0680010000000000000000000000FF00004C884F") else { Issue.record("not format 6"); return }
        #expect(low.temperatureCelsius == -163.835 && low.humidityPercent == 0 && low.pressurePascal == 50_000 && low.pm2_5 == 0)
        #expect(low.co2PPM == 0 && low.vocIndex == 0 && low.noxIndex == 0 && low.illuminanceLux == 0 && low.measurementSequence == 0)
        // Every field at "not available"; the sequence has none, and all flags are set.
        guard case .ruuviAir(let none) = Self.decoded("068000FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF") else { Issue.record("not format 6"); return }
        #expect(none.temperatureCelsius == nil && none.humidityPercent == nil && none.pressurePascal == nil && none.pm2_5 == nil)
        #expect(none.co2PPM == nil && none.vocIndex == nil && none.noxIndex == nil && none.illuminanceLux == nil && none.mac == nil)
        #expect(none.measurementSequence == 255 && none.calibrating)
    }

    @Test func formatE1GivesEveryFieldOfRuuviAirsExtendedAdvert() throws {
        let valid = "E1170C5668C79E0065007004BD11CA00C90A0213E0ACFFFFFFDECDEE10FFFFFFFFFFCBB8334C884F"
        guard case .ruuviAir(let r) = Self.decoded(valid) else { Issue.record("not format E1"); return }
        #expect(r.dataFormat == "E1" && r.temperatureCelsius == 29.5 && r.humidityPercent == 55.3 && r.pressurePascal == 101_102)
        #expect(r.pm1 == 10.1 && r.pm2_5 == 11.2 && r.pm4 == 121.3 && r.pm10 == 455.4 && r.co2PPM == 201)
        #expect(r.vocIndex == 20 && r.noxIndex == 4 && r.illuminanceLux == 13_027 && r.measurementSequence == 14_601_710)
        // Its flags byte is 0x10: only a reserved bit set, so not calibrating.
        #expect(!r.calibrating && r.mac == "CB:B8:33:4C:88:4F")
        #expect(Self.decoded(valid).identity?.description == "ruuvi:CB:B8:33:4C:88:4F")
        let high = "E17FFF9C40FFFE27102710271027109C40FAFADC28F0FFFFFFFFFFFE3FFFFFFFFFFFCBB8334C884F"
        guard case .ruuviAir(let max) = Self.decoded(high) else { Issue.record("not format E1"); return }
        #expect(max.pm1 == 1000 && max.pm10 == 1000 && max.illuminanceLux == 144_284 && max.measurementSequence == 16_777_214 && max.calibrating)
        let none = "E18000" + String(repeating: "FF", count: 37)
        guard case .ruuviAir(let unknown) = Self.decoded(none) else { Issue.record("not format E1"); return }
        #expect(unknown.temperatureCelsius == nil && unknown.pm1 == nil && unknown.pm4 == nil && unknown.pm10 == nil && unknown.co2PPM == nil)
        #expect(unknown.vocIndex == nil && unknown.noxIndex == nil && unknown.illuminanceLux == nil && unknown.measurementSequence == nil && unknown.mac == nil)
    }

    /// Every shorter length of each format is no reading of it, and no length crashes.
    @Test func aTruncatedRuuviAdvertIsUnknownAtEveryLength() {
        let formats = ["03170145355803E804E705E60886", "06170C5668C79E007000C90501D9FFCD004C884F",
                       "E1170C5668C79E0065007004BD11CA00C90A0213E0ACFFFFFFDECDEE10FFFFFFFFFFCBB8334C884F"]
        for hex in formats {
            let bytes = Advertisement.parseHex(hex) ?? []
            for length in 0..<bytes.count {
                let advertisement = AdvertisementDecoder.decode(companyID: 0x0499, Array(bytes.prefix(length)))
                #expect(advertisement == .unknown(.manufacturer(companyID: 0x0499, data: Array(bytes.prefix(length)))), "\(hex.prefix(2)) at \(length) bytes")
            }
            // Longer is fine: a newer firmware may append.
            #expect(AdvertisementDecoder.decode(companyID: 0x0499, bytes + [0, 1, 2]).format != "unknown")
        }
    }
}
