import Vocabulary

/// The JSON form of a decoded advertisement, used by `waymark decode` and
/// `waymark scan --json`: `{"format": "...", ...fields}`. Field names carry
/// their unit (`_dbm`, `_c`, `_pct`, `_pa`, `_v`, `_mv`, `_s`, `_g`, `_ppm`,
/// `_ugm3`, `_lux`); the indexes have none.
extension Advertisement: Encodable {
    private enum Keys: String, CodingKey {
        case format, identity, companyID = "company_id", serviceUUID = "service_uuid", data
    }

    public func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: Keys.self)
        try keyed.encode(format, forKey: .format)
        try keyed.encodeIfPresent(identity?.description, forKey: .identity)
        switch self {
        case .iBeacon(let v): try v.encode(to: encoder)
        case .altBeacon(let v): try v.encode(to: encoder)
        case .eddystoneUID(let v): try v.encode(to: encoder)
        case .eddystoneURL(let v): try v.encode(to: encoder)
        case .eddystoneTLM(let v): try v.encode(to: encoder)
        case .eddystoneEID(let v): try v.encode(to: encoder)
        case .ruuvi(let v): try v.encode(to: encoder)
        case .ruuviV1(let v): try v.encode(to: encoder)
        case .ruuviAir(let v): try v.encode(to: encoder)
        case .btHome(let v): try v.encode(to: encoder)
        case .unknown(.manufacturer(let company, let data)):
            try keyed.encode(company, forKey: .companyID)
            try keyed.encode(Hex.string(data), forKey: .data)
        case .unknown(.service(let uuid, let data)):
            try keyed.encode(uuid.description, forKey: .serviceUUID)
            try keyed.encode(Hex.string(data), forKey: .data)
        }
    }
}

extension Advertisement {
    /// Parses `0x004C:HEX` or `004c:HEX` and `UUID:HEX` command-line forms.
    public static func parseHex(_ text: some StringProtocol) -> [UInt8]? { Hex.bytes(text) }
}
