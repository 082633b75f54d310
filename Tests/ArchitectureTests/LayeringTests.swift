import Foundation
import PeerHarness
import Testing

/// The module graph's layers, read from Package.swift and the sources' own
/// imports: the middle points down, and no module but the composition
/// root depends on many others.
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
        let callers: Set = ["Run", "CLI", "Daemon", "Recorder", "Replay", "Uplink", "Control", "waymark"]
        // Configuration is a plain value: no store, no command line, no caller.
        #expect(Self.closure(of: "Config", in: targets).isDisjoint(with: callers.union(["Store", "Command"])))
        // The store knows no command line, no configuration and none of its callers.
        #expect(Self.closure(of: "Store", in: targets).isDisjoint(with: callers.union(["Config", "Command"])))
        // The recorder's executor and the session know no command line.
        for name in ["Recorder", "Session", "Upload", "Host", "Control", "Daemon"] {
            #expect(!Self.closure(of: name, in: targets).contains("Command"), "\(name) depends on Command")
        }
        // The commands serve only the composition root, and it only the executable.
        for (name, dependencies) in Self.shipped(targets) where name != "waymark" {
            #expect(name == "Run" || !dependencies.contains("CLI"), "\(name) depends on CLI")
            #expect(!dependencies.contains("Run"), "\(name) depends on Run")
        }
        // The radio's model knows no D-Bus: the client depends on it, not the reverse.
        #expect(Self.closure(of: "Radio", in: targets).isDisjoint(with: ["BlueZ", "DBus", "BluetoothKernel"]))
        for name in ["Capture", "Pairings", "Recorder", "Replay"] {
            #expect(!(targets[name] ?? []).contains("BlueZ"), "\(name) imports the D-Bus client")
        }
    }

    /// The manual's picture of the layers (docs/architecture.md), top row first: each row's modules.
    static func pictureRows() throws -> [[String]] {
        let page = try String(contentsOfFile: Checkout.path("docs/architecture.md"), encoding: .utf8)
        let section = page.components(separatedBy: "\n## Layers\n")[1]
        let picture = section.components(separatedBy: "```\n")[1]
        return picture.split(separator: "\n").map { line in
            line.split(separator: "·").map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "" }
        }
    }

    @Test func everyImportPointsDownTheManualsPictureOfTheLayers() throws {
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

    /// A module that needs more than 12 others does too much. The
    /// composition root is the one exception; the commands, which reach
    /// every part through its face, may use 20.
    @Test func noShippedModuleButTheCompositionRootDependsOnMoreThanTwelveOthers() throws {
        let shipped = Self.shipped(try Self.targets())
        let heavy = shipped.filter { $0.value.count > 12 }.map(\.key).sorted()
        #expect(heavy == ["CLI", "Run"], "\(heavy)")
        #expect((shipped["CLI"]?.count ?? 0) <= 20, "CLI depends on \(shipped["CLI"]?.count ?? 0) modules")
    }

    /// Package.swift's lists are the graph only if the sources import
    /// nothing else: SwiftPM lets a module import any module built before
    /// it, declared or not.
    @Test func everyModuleImportsOnlyWhatPackageSwiftDeclares() throws {
        let targets = try Self.targets()
        let files = FileManager.default
        for (name, dependencies) in Self.shipped(targets) {
            let directory = Checkout.path("Sources/\(name)")
            guard let names = files.enumerator(atPath: directory)?.compactMap({ $0 as? String }) else {
                Issue.record("no sources for \(name)")
                continue
            }
            for file in names where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ").map(String.init)
                    guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                          words[..<index].allSatisfy({ ["public", "package", "internal", "@testable", "@_exported"].contains($0) }) else { continue }
                    let module = words[index + 1]
                    #expect(targets[module] == nil || dependencies.contains(module), "\(name)/\(file) imports \(module), which Package.swift does not list")
                }
            }
        }
    }
}
