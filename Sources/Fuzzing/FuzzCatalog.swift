internal import Advertisements
internal import Basics
internal import BluetoothKernel
import Config
internal import FoundationEssentials
internal import HTTP
internal import Location
internal import Session
import Vocabulary

/// Every parser that reads bytes from outside, with valid inputs to mutate.
public enum FuzzCatalog {
    public static var targets: [FuzzTarget] { [nmea, gpsd, config, adverts, managementEvents, retryAfter, token, settings, idToken, capture, store] }

    static func lines(_ text: String) -> [[UInt8]] { text.split(separator: "\n").map { Array($0.utf8) } }

    /// `$BODY*hh`, with its checksum.
    static func sentence(_ body: String) -> [UInt8] {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF".utf8)
        return Array(("$" + body + "*").utf8) + [hex[Int(checksum >> 4)], hex[Int(checksum & 15)]]
    }

    static let nmea = FuzzTarget(
        name: "nmea",
        seeds: [
            "GPRMC,120000.00,A,4813.0535,N,00824.8697,E,10.0,90.0,301126,,,A", "GPGGA,120000.00,4813.0535,N,00824.8697,E,2,08,1.0,765.8,M,47.4,M,,",
            "GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1", "GPGSV,2,1,08,01,40,083,46,02,17,308,41,12,07,344,39,14,22,228,45",
            "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K", "GNGNS,120000.00,4813.0535,N,00824.8697,E,AN,08,1.0,765.8,47.4,,",
            "GPZDA,120000.00,30,11,2026,00,00", "PMTK010,001",
        ].map(sentence),
        prefixes: lines("$GPRMC,\n$GPGGA,120000.00,4813.0535,N,\n$PMTK") + [Array("$GPRMC,120000.00,A,".utf8)],
        parse: { line in
            guard let sentence = try? NMEASentence(utf8: line) else { return false }
            _ = sentence.coordinate(2, hemisphere: 3, limit: 90)
            _ = sentence.timeOfDay(0)
            _ = sentence.double(6)
            _ = sentence.integer(8)
            _ = sentence.fields
            var assembler = NMEAFixAssembler()
            _ = assembler.add(sentence)
            _ = assembler.finish()
            return true
        })

    static var gpsd: FuzzTarget {
        nonisolated(unsafe) let decoder = GPSDDecoder()
        return FuzzTarget(
            name: "gpsd-json",
            seeds: lines("""
                {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-30T12:00:00.000Z","ept":0.005,"lat":48.217558333,"lon":8.414495,"altHAE":813.2,"altMSL":765.8,"track":90.0,"speed":5.144,"climb":0.0,"eph":2.1}
                {"class":"SKY","device":"/dev/ttyACM0","hdop":1.0,"satellites":[{"PRN":4,"el":40,"az":83,"ss":46,"used":true}]}
                {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
                {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2026-11-30T12:00:00.000Z","driver":"NMEA0183"}]}
                {"class":"DEVICE","path":"/dev/ttyACM0","activated":0}
                {"class":"ERROR","message":"unrecognized request"}
                """),
            prefixes: lines(#"{"class":"TPV","lat":"# + "\n" + #"{"class":"SKY","satellites":[{"PRN":"#),
            parse: { line in (try? decoder.decode(line)) != nil })
    }

    static let config = FuzzTarget(
        name: "config",
        seeds: [
            Configuration.documentedDefaults, "[Upload]\nBatchSize = 500\nMaxQueueBytes = 256M\n",
            "[Recording]\r\nGapThreshold = 90s\r\nBeaconLostTimeout = 2min\r\n", "[Location]\nSource = nmea:///dev/ttyACM0?baud=9600\n",
            "[Session]\nIssuer = https://id.example/realms/fleet\nScopes = openid waymark\n",
        ].map { Array($0.utf8) },
        prefixes: ["[Upload]\nBatchSize = ", "[Location]\nSource = nmea:///dev/ttyACM0?baud=", "[Session]\nIssuer = https://",
                   "[Recording]\nGapThreshold = "].map { Array($0.utf8) },
        parse: { text in (try? Configuration.parse(String(decoding: text, as: UTF8.self), file: "fuzz.conf")) != nil })

    static let adverts = FuzzTarget(
        name: "adverts",
        seeds: [
            "004C0215426c7565436861726d426561636f6e730efe1355c5", "FFFFbeacd3162f5af3ee494799db09756062d0fc005a0005c400",
            "049905 12fc5394c37c0004fffc040cac364200cdcbb8334c884f", "FEAA00939e5d61e66621da7ca6300ed145673a890000",
            "FEAA10f8036769746875620063697472757a", "FEAA20000b1813000000146700002ac4", "FCD24002ca0903bf13",
            "FCD241a47266c95f730011223378237214",
        ].compactMap { Advertisement.parseHex($0.filter { $0 != " " }) },
        parse: { bytes in
            guard bytes.count >= 2 else { return false }
            let key = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            let body = Array(bytes.dropFirst(2))
            let decoded: Advertisement
            switch key {
            case 0xFEAA, 0xFCD2:
                decoded = AdvertisementDecoder.decode(serviceUUID: key == 0xFEAA ? "FEAA" : "FCD2", body, bindkey: bindkey, address: address)
            default:
                decoded = AdvertisementDecoder.decode(companyID: key, body)
            }
            if case .unknown = decoded { return false }
            return true
        })

    /// Device-found events as the kernel's management channel sends them,
    /// with their advertising data parsed as the scanner does.
    static let managementEvents = FuzzTarget(
        name: "mgmt-events",
        seeds: [
            "02011a1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000640000c5", "0201060716d2fc4002ca09050974616731020afc",
            "020106 1116aafe20000b1813000000146700002ac4", "1bff9904 0512fc5394c37c0004fffc040cac364200cdcbb8334c884f", "",
        ].enumerated().flatMap { index, data in
            let found = DeviceFound(address: 0x00AA_0100_0000 + UInt64(index), addressType: 1 + UInt8(index % 2), rssi: -60, flags: 4,
                                    data: Advertisement.parseHex(data.filter { $0 != " " }) ?? [])
            return [found.encoded(index: 1), found.encoded(index: 0, monitorHandle: 1)]
        },
        parse: { bytes in
            let found: DeviceFound
            switch try? ManagementEvent.decode(bytes).event {
            case .deviceFound(let event)?, .monitorDeviceFound(_, let event)?: found = event
            default: return false
            }
            let data = AdvertisingData(found.data)
            _ = (found.addressText, found.addressTypeText)
            return !data.truncated
        })

    static let bindkey = Advertisement.parseHex("231d39c1d7cc1ab1aee224cd096db932")
    static let address = Advertisement.parseHex("5448E68F80A5")

    static let retryAfter = FuzzTarget(
        name: "retry-after",
        seeds: lines("120\n0\n1.5\nSun, 06 Nov 1994 08:49:37 GMT\nWed, 21 Oct 2026 07:28:00 GMT"),
        prefixes: lines("Sun, 06 Nov 1994 \n1"),
        parse: { text in
            if case .delay = RetryAfter.parse(String(decoding: text, as: UTF8.self), now: 1_796_000_000) { return true }
            return false
        })

    static let token = FuzzTarget(
        name: "token-json",
        seeds: lines("""
            {"access_token":"eyJ.a.b","token_type":"bearer","expires_in":3600,"refresh_token":"r1","id_token":"eyJ.c.d","scope":"openid"}
            {"access_token":"x","token_type":"Bearer","expires_in":"3600"}
            {"access_token":"x","token_type":"bearer","expires_in":0}
            {"access_token":"x","token_type":"bearer"}
            """),
        parse: { body in TokenResponse.decode(body).map { $0.lifetime.map { $0 > 0 } ?? true } ?? false })

    static let settings = FuzzTarget(
        name: "settings-json",
        seeds: lines("""
            {"settings":{"gap_threshold_s":60,"upload_batch_size":500,"scan_watchdog_s":60,"device_expiry_s":300},"commands":[{"id":"c1","type":"lock"}]}
            {"settings":{},"commands":[{"id":"c2","type":"wipe"},{"id":"c3","type":"reboot"}]}
            {"settings":{"upload_batch_size":1e300,"gap_threshold_s":-1}}
            """),
        // As the session reads the settings answer.
        parse: { body in (try? OutsideJSON.decode(RemoteSettings.self, from: body)) != nil })

    static let idToken = FuzzTarget(
        name: "id-token",
        seeds: lines("""
            eyJhbGciOiJub25lIn0.eyJzdWIiOiJzIiwiaXNzIjoiaHR0cHM6Ly9pZC5leGFtcGxlIiwiYXVkIjoid2F5bWFyayIsImV4cCI6MTc5NjAwMDYwMH0.sig
            eyJhbGciOiJub25lIn0.eyJzdWIiOiJzIiwiaXNzIjoiaHR0cHM6Ly9pZC5leGFtcGxlIiwiYXVkIjpbIndheW1hcmsiLCJvdGhlciJdLCJhenAiOiJ3YXltYXJrIiwiZXhwIjoxZTMwMH0.sig
            """),
        parse: { token in
            (try? IDTokenClaims(token: String(decoding: token, as: UTF8.self), issuer: "https://id.example", clientID: "waymark", now: 1_796_000_000)) != nil
        })
}
