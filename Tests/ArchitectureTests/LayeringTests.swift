import Foundation
import PeerHarness
import Testing

/// The module graph's layers, read from Package.swift: the middle points
/// down, and no module but the command line's depends on many others.
struct LayeringTests {
    /// Each target's name and its dependencies, as Package.swift lists them.
    static func targets() throws -> [String: [String]] {
        let manifest = try String(contentsOfFile: Checkout.path("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)",\s*dependencies:\s*\[([^\]]*)\]"#)
        var targets: [String: [String]] = [:]
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 2))
            let list = text.substring(with: match.range(at: 3))
            targets[name] = list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
        }
        return targets
    }

    /// Targets that ship in `waymark`, not tests, tools or C wrappers.
    static func shipped(_ targets: [String: [String]]) -> [String: [String]] {
        targets.filter { !$0.key.hasSuffix("Tests") && !$0.key.hasPrefix("waymark-") && !["Fuzzing", "Peers", "PeerHarness", "DBusFloor"].contains($0.key) }
    }

    /// Everything `name` depends on, directly or not.
    static func closure(of name: String, in targets: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var next = targets[name] ?? []
        while let dependency = next.popLast() {
            guard seen.insert(dependency).inserted else { continue }
            next += targets[dependency] ?? []
        }
        return seen
    }

    @Test func theMiddleLayersPointDown() throws {
        let targets = try Self.targets()
        #expect(targets.count > 40, "Package.swift was read")
        let callers: Set = ["CLI", "Daemon", "Recorder", "Replay", "Uplink", "Control", "Gateway", "waymark"]
        // Configuration is a plain value: no store, no command line, no caller.
        #expect(Self.closure(of: "Config", in: targets).isDisjoint(with: callers.union(["Store", "Command"])))
        // The store knows no command line, no configuration and none of its callers.
        #expect(Self.closure(of: "Store", in: targets).isDisjoint(with: callers.union(["Config", "Command"])))
        // The recorder's executor and the session know no command line.
        for name in ["Recorder", "Session", "Upload", "Host", "Control", "Daemon"] {
            #expect(!Self.closure(of: name, in: targets).contains("Command"), "\(name) depends on Command")
        }
        // Nothing shipped depends on the command line but the executable.
        for (name, dependencies) in Self.shipped(targets) where name != "waymark" {
            #expect(!dependencies.contains("CLI"), "\(name) depends on CLI")
        }
    }

    /// The README's picture of the layers, top row first: each row's modules.
    static func pictureRows() throws -> [[String]] {
        let readme = try String(contentsOfFile: Checkout.path("README.md"), encoding: .utf8)
        let section = readme.components(separatedBy: "### Layers")[1]
        let picture = section.components(separatedBy: "```\n")[1]
        return picture.split(separator: "\n").map { line in
            line.split(separator: "·").map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "" }
        }
    }

    @Test func everyImportPointsDownTheReadmesPictureOfTheLayers() throws {
        let targets = try Self.targets()
        let rows = try Self.pictureRows()
        var row: [String: Int] = [:]
        for (index, names) in rows.enumerated() { for name in names { row[name] = index } }
        let drawn = Set(Self.shipped(targets).keys).subtracting(["waymark"]).filter { !$0.hasPrefix("C") || $0 == "CLI" || $0 == "Cipher" || $0 == "Capture" || $0 == "Config" || $0 == "Control" || $0 == "Command" }
        #expect(drawn.subtracting(row.keys).isEmpty, "modules missing from the picture: \(drawn.subtracting(row.keys).sorted())")
        for (name, level) in row {
            for dependency in targets[name] ?? [] {
                guard let below = row[dependency] else { continue }
                #expect(below > level, "\(name) (row \(level + 1)) imports \(dependency) (row \(below + 1)): up or sideways")
            }
        }
    }

    /// A module that needs more than 12 others does too much. The one
    /// exception is the command line, which holds the commands and the
    /// daemon's composition root (`CLI/Run`) together for now.
    @Test func noShippedModuleButTheCommandLineDependsOnMoreThanTwelveOthers() throws {
        let heavy = Self.shipped(try Self.targets()).filter { $0.value.count > 12 }.map(\.key).sorted()
        #expect(heavy == ["CLI"], "\(heavy)")
    }
}
