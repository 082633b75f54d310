internal import CZlib
internal import Radio
internal import Vocabulary

/// The capture's framing, inside the gzip stream:
///
///     "WMCAP\0" format:u16          once, at the start
///     length:u32 body crc32(body):u32   per record; the first is the header
///
/// A body starts with its type (0 header, 1 advert, 2 location line,
/// 3 state); records after the header start with boot:f64 wall:f64 flags:u8.
/// All integers are little-endian; strings are UTF-8 with a u16 length
/// (u32 for the config, the pairings and location lines).
public enum CaptureCodec {
    static let magic: [UInt8] = Array("WMCAP".utf8) + [0]
    /// The preamble: the magic and the format.
    static let preambleSize = magic.count + 2
    /// No record is larger: a gpsd line is at most 1 MiB, and the header holds a config of at most 1 MiB.
    static let maximumBody = 3 << 20

    /// The uncompressed stream a capture file holds, for tests and fuzzing
    /// (gzip it to make a file).
    public static func stream(header: CaptureHeader, records: [CaptureRecord], format: UInt16 = CaptureHeader.currentFormat) -> [UInt8] {
        records.reduce(preamble(format: format) + frame(encode(header))) { $0 + frame(encode($1)) }
    }

    static func preamble(format: UInt16 = CaptureHeader.currentFormat) -> [UInt8] {
        magic + [UInt8(format & 0xff), UInt8(format >> 8)]
    }

    static func frame(_ body: [UInt8]) -> [UInt8] {
        var out = CaptureBytes()
        out.u32(UInt32(body.count))
        out.bytes += body
        out.u32(checksum(body))
        return out.bytes
    }

    static func checksum(_ body: [UInt8]) -> UInt32 {
        UInt32(body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
    }

    static func encode(_ header: CaptureHeader) -> [UInt8] {
        var out = CaptureBytes()
        out.u8(0)
        out.short(header.waymarkVersion)
        out.f64(header.started)
        out.short(header.bootID)
        out.long(header.config)
        out.long(header.pairings)
        return out.bytes
    }

    static func encode(_ record: CaptureRecord) -> [UInt8] {
        var out = CaptureBytes()
        switch record.body {
        case .advert: out.u8(1)
        case .location: out.u8(2)
        case .state: out.u8(3)
        }
        out.f64(record.boot)
        out.f64(record.wall)
        out.u8(record.synchronized ? 1 : 0)
        switch record.body {
        case .advert(let adapter, let sighting):
            out.short(adapter)
            out.short(sighting.address.description)
            out.short(sighting.address.kind?.rawValue ?? "")
            out.i16(sighting.rssi)
            out.i16(sighting.txPower)
            out.u8(sighting.name == nil ? 0 : 1)
            out.short(sighting.name ?? "")
            out.u8(sighting.paired ? 1 : 0)
            out.u64(sighting.uptimeNanoseconds)
            out.u16(UInt16(clamping: sighting.manufacturerData.count))
            for (company, data) in sighting.manufacturerData.sorted(by: { $0.key < $1.key }).prefix(Int(UInt16.max)) {
                out.u16(company)
                out.data16(data)
            }
            out.u16(UInt16(clamping: sighting.serviceData.count))
            for (uuid, data) in sighting.serviceData.sorted(by: { $0.key < $1.key }).prefix(Int(UInt16.max)) {
                out.short(uuid.description)
                out.data16(data)
            }
        case .location(let line):
            out.u8(line.speaks.rawValue)
            out.data32(line.bytes)
        case .state(let state):
            let (kind, values) = state.fields
            out.short(kind)
            out.u16(UInt16(clamping: values.count))
            for (key, value) in values.sorted(by: { $0.0 < $1.0 }).prefix(Int(UInt16.max)) {
                out.short(key)
                out.short(value)
            }
        }
        return out.bytes
    }

    static func header(_ body: [UInt8], format: UInt16) throws(CaptureError) -> CaptureHeader {
        var fields = CaptureFields(body)
        do {
            guard try fields.u8() == 0 else { throw CaptureError.malformed("the first record is not the header") }
            let header = CaptureHeader(format: format, waymarkVersion: try fields.short(), started: try fields.f64(), bootID: try fields.short(),
                                       config: try fields.long(), pairings: try fields.long())
            guard fields.atEnd else { throw CaptureError.malformed("the header has bytes after its last field") }
            return header
        } catch let error as CaptureError {
            throw error
        } catch {
            throw .malformed("the header is shorter than its fields")
        }
    }

    static func record(_ body: [UInt8]) throws(CaptureError) -> CaptureRecord {
        var fields = CaptureFields(body)
        do {
            let type = try fields.u8()
            let (boot, wall, flags) = (try fields.f64(), try fields.f64(), try fields.u8())
            guard boot.isFinite, wall.isFinite else { throw CaptureError.malformed("a record's time is not a finite number") }
            let body: CaptureRecord.Body
            switch type {
            case 1:
                let adapter = try fields.short()
                let (text, type) = (try fields.short(), try fields.short())
                guard let address = BluetoothAddress(text, kind: BluetoothAddress.Kind(rawValue: type)) else {
                    throw CaptureError.malformed("an advert's address is not one: \(text.prefix(40).debugDescription)")
                }
                var sighting = Sighting(address: address, uptimeNanoseconds: 0)
                (sighting.rssi, sighting.txPower) = (try fields.i16(), try fields.i16())
                let hasName = try fields.u8() != 0
                let name = try fields.short()
                sighting.name = hasName ? name : nil
                sighting.paired = try fields.u8() != 0
                sighting.uptimeNanoseconds = try fields.u64()
                for _ in 0..<(try fields.u16()) { sighting.manufacturerData[try fields.u16()] = try fields.data16() }
                for _ in 0..<(try fields.u16()) {
                    // A key that is no UUID (the file was damaged) is passed over with its data.
                    let (key, data) = (try fields.short(), try fields.data16())
                    if let uuid = BluetoothUUID(key) { sighting.serviceData[uuid] = data }
                }
                body = .advert(adapter: adapter, sighting)
            case 2:
                guard let speaks = LocationLine.Speaks(rawValue: try fields.u8()) else { throw CaptureError.malformed("a location line of an unknown protocol") }
                body = .location(LocationLine(speaks: speaks, bytes: try fields.data32()))
            case 3:
                let kind = try fields.short()
                var values: [(String, String)] = []
                for _ in 0..<(try fields.u16()) { values.append((try fields.short(), try fields.short())) }
                body = .state(CaptureState(kind: kind, values: values))
            default:
                throw CaptureError.malformed("a record of unknown type \(type)")
            }
            guard fields.atEnd else { throw CaptureError.malformed("a record has bytes after its last field") }
            return CaptureRecord(boot: boot, wall: wall, synchronized: flags & 1 != 0, body: body)
        } catch let error as CaptureError {
            throw error
        } catch {
            throw .malformed("a record is shorter than its fields")
        }
    }
}
