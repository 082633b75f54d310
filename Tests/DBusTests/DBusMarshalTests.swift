import Basics
import DBus
import PeerHarness
import Testing

struct DBusMarshalTests {
    @Test func randomNestedValuesSurviveTheWireUnchanged() async throws {
        var rng = SplitMix64(seed: 0x57A7_3A11)
        for round in 0..<100_000 {
            // Long CPU loops share the test runner's few threads with async tests.
            if round % 1000 == 0 { await Task.yield() }
            let arguments = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                RandomValues.value(of: RandomValues.type(depth: 0, using: &rng), using: &rng)
            }
            let message = try DBusMessage.signal(path: "/io/waymark/Fuzz", interface: "io.waymark.Fuzz", name: "Case", arguments: arguments)
            let decoded = try DBusMessage(demarshalling: message.marshal()).arguments()
            guard decoded == arguments else {
                Issue.record("round \(round): \(arguments.map(\.signature)) came back as \(decoded.map(\.signature))")
                return
            }
        }
    }

    @Test func theInPlaceReaderAgreesWithFullDecodingAndRefusesWrongTypes() async throws {
        var rng = SplitMix64(seed: 99)
        for round in 0..<20_000 {
            if round % 1000 == 0 { await Task.yield() }
            let arguments = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                RandomValues.value(of: RandomValues.type(depth: 0, using: &rng), using: &rng)
            }
            let message = try DBusMessage(demarshalling: DBusMessage.signal(path: "/a", interface: "a.b", name: "C", arguments: arguments).marshal())
            let read = message.withArguments { reader -> [DBusValue] in
                var values: [DBusValue] = []
                while reader.hasMore, let value = try? reader.value() { values.append(value) }
                return values
            }
            #expect(read == arguments)
            // Asking for the wrong type gives nil and moves on; it never traps.
            _ = message.withArguments { reader in
                (reader.string(), reader.integer(), reader.bytes(), reader.bool(), reader.variant { $0.string() })
            }
        }
    }

    @Test func nestedBlueZShapeRoundTrips() throws {
        let device = DBusValue.dictionary(key: "s", value: "v", [
            DBusDictEntry(.string("ManufacturerData"), .variant(.dictionary(key: "q", value: "v", [
                DBusDictEntry(.uint16(0x004C), .variant(.bytes([0x02, 0x15, 0xFF]))),
            ]))),
            DBusDictEntry(.string("RSSI"), .variant(.int16(-60))),
        ])
        let managed = DBusValue.dictionary(key: "o", value: "a{sa{sv}}", [
            DBusDictEntry(.objectPath("/org/bluez/hci0/dev_00_11_22_33_44_55"), .dictionary(key: "s", value: "a{sv}", [
                DBusDictEntry(.string("org.bluez.Device1"), device),
            ])),
        ])
        #expect(managed.signature == "a{oa{sa{sv}}}")
        let message = try DBusMessage.signal(path: "/", interface: "io.waymark.Fuzz", name: "Case", arguments: [managed])
        #expect(try DBusMessage(demarshalling: message.marshal()).arguments() == [managed])
    }

    @Test func arbitraryBytesNeverCrashTheDemarshaller() async throws {
        var rng = SplitMix64(seed: 7)
        let valid = try DBusMessage.signal(path: "/a", interface: "a.b", name: "C", arguments: [
            .vardict(["x": .bytes([1, 2, 3]), "y": .array(element: "s", [.string("z")])]),
        ]).marshal()
        var rejected = 0
        for round in 0..<100_000 {
            // Long CPU loops share the test runner's few threads with async tests.
            if round % 1000 == 0 { await Task.yield() }
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                // Mutate a valid message, keeping the header plausible more often.
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &rng)) }
            }
            do {
                _ = try DBusMessage(demarshalling: bytes).arguments()
            } catch {
                rejected += 1
            }
        }
        #expect(rejected > 50_000)
    }

    @Test(arguments: [
        DBusValue.objectPath("not/a/path"),
        .objectPath("/trailing/"),
        .string("nul\u{0}inside"),
        .signature("a{vs}"),
        .array(element: "s", [.int32(1)]),
        .dictionary(key: "s", value: "v", [DBusDictEntry(.int32(1), .variant(.bool(true)))]),
        .dictionary(key: "v", value: "s", []),
        .structure([]),
    ])
    func invalidValuesAreRefusedWithATypedError(_ value: DBusValue) {
        #expect(throws: DBusError.self) {
            _ = try DBusMessage.signal(path: "/a", interface: "a.b", name: "C", arguments: [value])
        }
    }

    @Test func nestingBeyondTheSpecificationIsRefused() {
        var value = DBusValue.int32(1)
        for _ in 0..<70 { value = .variant(value) }
        #expect(throws: DBusError.self) {
            _ = try DBusMessage.signal(path: "/a", interface: "a.b", name: "C", arguments: [value])
        }
    }

    @Test func signaturesSplitIntoCompleteTypes() {
        #expect(DBusSignature.split("sa{sv}(ii)v") == ["s", "a{sv}", "(ii)", "v"])
        #expect(DBusSignature.split("a{") == [])
    }
}

/// Random D-Bus types and values within the specification's limits.
enum RandomValues {
    indirect enum TypeShape {
        case basic(Character)
        case array(TypeShape)
        case dictionary(Character, TypeShape)
        case structure([TypeShape])
        case variant
    }

    static let basics: [Character] = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]

    static func type(depth: Int, using rng: inout SplitMix64) -> TypeShape {
        let pick = depth >= 4 ? 0 : Int.random(in: 0..<9, using: &rng)
        switch pick {
        case 5: return .array(type(depth: depth + 1, using: &rng))
        case 6: return .dictionary(basics.randomElement(using: &rng)!, type(depth: depth + 1, using: &rng))
        case 7: return .structure((0..<Int.random(in: 1...3, using: &rng)).map { _ in type(depth: depth + 1, using: &rng) })
        case 8: return .variant
        default: return .basic(basics.randomElement(using: &rng)!)
        }
    }

    static func signature(_ type: TypeShape) -> String {
        switch type {
        case .basic(let c): String(c)
        case .array(let element): "a" + signature(element)
        case .dictionary(let key, let value): "a{" + String(key) + signature(value) + "}"
        case .structure(let fields): "(" + fields.map(signature).joined() + ")"
        case .variant: "v"
        }
    }

    static func value(of type: TypeShape, using rng: inout SplitMix64) -> DBusValue {
        switch type {
        case .basic(let c): return basic(c, using: &rng)
        case .array(.basic("y")):
            return .bytes((0..<Int.random(in: 0...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case .array(let element):
            return .array(element: signature(element), (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(of: element, using: &rng) })
        case .dictionary(let key, let valueType):
            let entries = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                DBusDictEntry(basic(key, using: &rng), value(of: valueType, using: &rng))
            }
            return .dictionary(key: String(key), value: signature(valueType), entries)
        case .structure(let fields):
            return .structure(fields.map { value(of: $0, using: &rng) })
        case .variant:
            return .variant(value(of: self.type(depth: 2, using: &rng), using: &rng))
        }
    }

    static func basic(_ code: Character, using rng: inout SplitMix64) -> DBusValue {
        switch code {
        case "y": .byte(.random(in: .min ... .max, using: &rng))
        case "b": .bool(.random(using: &rng))
        case "n": .int16(.random(in: .min ... .max, using: &rng))
        case "q": .uint16(.random(in: .min ... .max, using: &rng))
        case "i": .int32(.random(in: .min ... .max, using: &rng))
        case "u": .uint32(.random(in: .min ... .max, using: &rng))
        case "x": .int64(.random(in: .min ... .max, using: &rng))
        case "t": .uint64(.random(in: .min ... .max, using: &rng))
        case "d": .double(Double(bitPattern: rng.next() & ~(0x7FF << 52)))
        case "s": .string(String(String.UnicodeScalarView((0..<Int.random(in: 0...8, using: &rng)).compactMap { _ in
            UnicodeScalar(UInt32.random(in: 1...0x10FFFF, using: &rng))
        })))
        case "o": .objectPath(["/", "/org/bluez/hci0", "/a_1/B2"].randomElement(using: &rng)!)
        default: .signature(["", "a{sv}", "(iu)as", "v"].randomElement(using: &rng)!)
        }
    }
}
