/// One line of `waymark doctor`: a node of its tree. A check that needs
/// another which failed, or was itself skipped, is not judged: it shows as
/// skipped, naming what it needs, so one cause makes one failure.
struct DoctorCheck: Encodable, Equatable {
    enum Status: String, Encodable {
        case ok
        /// Passes, with a caveat worth a look.
        case warn
        case fail
        /// Not judged: a check it needs did not pass.
        case skipped
    }

    var area: String
    var name: String
    var status: Status
    var detail: String
    var fix: String?
    /// The checks (`area/name`) this one means nothing without.
    var needs: [String]

    var id: String { "\(area)/\(name)" }
    var passed: Bool { status == .ok || status == .warn }

    /// `fix`: a more precise one than the item's own (naming a path or an owner).
    init(_ item: DoctorItem, ok: Bool, detail: String, fix: String? = nil, warning: Bool = false, needs: [DoctorItem] = []) {
        area = item.area
        name = item.name
        status = !ok ? .fail : warning ? .warn : .ok
        self.detail = detail
        self.fix = fix ?? item.fix
        self.needs = needs.map(\.rawValue)
    }

    /// The checks in order, each one whose needs did not all pass marked
    /// skipped. A check needs only checks listed before it.
    static func tree(_ checks: [DoctorCheck]) -> [DoctorCheck] {
        var passed: [String: Bool] = [:]
        return checks.map { check in
            var check = check
            let unmet = check.needs.filter { passed[$0] == false }
            if !unmet.isEmpty {
                check.status = .skipped
                check.detail = "skipped (needs: \(unmet.joined(separator: ", ")))"
                check.fix = nil
            }
            passed[check.id] = check.passed
            return check
        }
    }

    /// `FAIL  area: name: detail`, and the fix under a failure or a warning.
    var text: String {
        let label = switch status {
        case .ok: "ok  "
        case .warn: "warn"
        case .fail: "FAIL"
        case .skipped: "skip"
        }
        var line = "\(label)  \(area): \(name): \(detail)"
        if status == .fail || status == .warn, let fix { line += "\n      fix: \(fix)" }
        return line
    }

    enum CodingKeys: String, CodingKey { case area, name, status, ok, warning, detail, fix, needs }

    func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(area, forKey: .area)
        try keys.encode(name, forKey: .name)
        try keys.encode(status, forKey: .status)
        // The booleans of earlier versions, kept for scripts that read them.
        try keys.encode(passed, forKey: .ok)
        try keys.encode(status == .warn, forKey: .warning)
        try keys.encode(detail, forKey: .detail)
        try keys.encodeIfPresent(fix, forKey: .fix)
        try keys.encode(needs, forKey: .needs)
    }
}
