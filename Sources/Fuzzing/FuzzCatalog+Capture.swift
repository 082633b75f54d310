internal import BlueZ
internal import Capture
import Radio
internal import Upload
import Vocabulary

extension FuzzCatalog {
    /// A capture with one record of every type.
    static let captureRecords: [CaptureRecord] = [
        CaptureRecord(boot: 10, wall: 1_764_000_000, synchronized: true, body: .state(.running(true))),
        CaptureRecord(boot: 10.5, wall: 1_764_000_000.5, synchronized: true, body: .advert(adapter: "hci0", Sighting(
            address: BluetoothAddress(value: 0xC0FF_EE00_0001, kind: .random), rssi: -60, txPower: -4, name: "tag",
            manufacturerData: [0x004C: [0x02, 0x15] + Array(repeating: 0xE2, count: 21)], serviceData: ["0000fcd2-0000-1000-8000-00805f9b34fb": [0x40, 0x02, 0xC4, 0x09]],
            uptimeNanoseconds: 10_500_000_000))),
        CaptureRecord(boot: 11, wall: 1_764_000_001, synchronized: false, body: .location(LocationLine(speaks: .nmea, bytes: Array("$GPGGA,120000.00,4813.0535,N,00824.8697,E,2,08,1.0,765.8,M,47.4,M,,*5B".utf8)))),
        CaptureRecord(boot: 12, wall: 1_764_000_002, synchronized: true, body: .location(LocationLine(speaks: .gpsd, bytes: Array(#"{"class":"TPV","mode":3,"lat":48.2,"lon":8.4}"#.utf8)))),
    ]

    static let captureHeader = CaptureHeader(waymarkVersion: "0.1.0", started: 1_764_000_000, bootID: "b0", config: "[Recording]\nBeaconLostTimeout = 30s\n",
                                             pairings: #"[{"has_bindkey":false,"id":1,"identity":"address:C0:FF:EE:00:00:01","label":"car","role":"vehicle"}]"#)

    /// The capture reader: the first byte says whether the rest is the
    /// uncompressed stream (mutated framing, gzipped here) or the file's
    /// compressed bytes (mutated deflate data).
    static var capture: FuzzTarget {
        let stream = CaptureCodec.stream(header: captureHeader, records: captureRecords)
        return FuzzTarget(
            name: "capture",
            seeds: [[0] + stream, [1] + Gzip.compress(stream), [0] + CaptureCodec.stream(header: captureHeader, records: [])],
            parse: { input in
                guard let kind = input.first else { return false }
                let body = Array(input.dropFirst())
                guard let reader = try? CaptureReader(bytes: kind % 2 == 0 ? Gzip.compress(body) : body) else { return false }
                while reader.next() != nil {}
                return reader.stop == .complete
            })
    }
}
