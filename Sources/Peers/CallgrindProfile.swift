/// A profile written by valgrind's callgrind (`--callgrind-out-file`), read
/// for which functions ran: `make order-file` lists them for the linker.
public enum CallgrindProfile {
    /// The functions a callgrind profile charged cost to in `object`. Names
    /// are compressed: `fn=(12) name` or `cfn=(12) name` (a callee) defines
    /// 12, and a later `fn=(12)` refers to it; objects likewise, with `ob=`
    /// and `cob=`. A name may end in `'N`, a recursion depth.
    public static func functions(in profile: String, object: String) -> Set<String> {
        var objects: [Substring: Substring] = [:]
        var functions: [Substring: Substring] = [:]
        var inObject = false
        var found = Set<String>()
        for line in profile.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "="), line.distance(from: line.startIndex, to: equals) <= 3 else { continue }
            let key = line[..<equals]
            let isObject = key == "ob" || key == "cob"
            guard isObject || key == "fn" || key == "cfn" else { continue }
            var name = line[line.index(after: equals)...]
            if name.first == "(", let close = name.firstIndex(of: ")") {
                let id = name[name.index(after: name.startIndex)..<close]
                let rest = name[name.index(after: close)...].drop { $0 == " " }
                if rest.isEmpty {
                    name = (isObject ? objects[id] : functions[id]) ?? ""
                } else {
                    name = rest
                    if isObject { objects[id] = rest } else { functions[id] = rest }
                }
            }
            if key == "ob" {
                inObject = name == object
            } else if key == "fn" && inObject && !name.hasPrefix("0x") {
                found.insert(String(name.prefix { $0 != "'" }))
            }
        }
        return found
    }
}
