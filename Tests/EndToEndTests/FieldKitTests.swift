import Foundation
import PeerHarness
import Testing

/// What `make install` puts on a Pi: the unit, the udev rules, the policy,
/// sysusers and tmpfiles entries, and a commented default config.
@Suite(.serialized)
struct FieldKitTests {
    static func run(_ program: String, _ arguments: [String], in work: TemporaryDirectory, package: String) throws -> (Int32, String) {
        let process = try ChildProcess(program, arguments, aptPackage: package, logPath: work.file("\(UUID().uuidString).log"))
        return (try process.wait(timeout: 120), process.output)
    }

    @Test func theSystemdUnitIsHardenedToAnExposureOfAtMostTwo() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let unit = try String(contentsOf: Checkout.root.appendingPathComponent("hardware/waymark.service"), encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: "/usr/bin")
        try unit.write(toFile: work.file("waymark.service"), atomically: true, encoding: .utf8)
        for line in ["Type=notify", "WatchdogSec=", "Restart=always", "User=waymark", "StateDirectory=waymark", "ConfigurationDirectory=waymark",
                     "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet=CAP_NET_ADMIN\n", "AmbientCapabilities=CAP_NET_ADMIN\n",
                     "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_BLUETOOTH AF_NETLINK", "SystemCallFilter=@system-service",
                     "RestartPreventExitStatus=78", "DeviceAllow=char-ttyACM r", "DeviceAllow=char-ttyUSB r", "LimitCORE=0"] {
            #expect(unit.contains(line), "\(line)")
        }
        #expect(!unit.contains("IPAddressDeny=\n"), "an empty IPAddressDeny= only resets the list")
        let (status, output) = try Self.run("systemd-analyze", ["security", "--offline=true", work.file("waymark.service")], in: work, package: "systemd")
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(status) \(output.suffix(500))")
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 2.0, "\(line)")
    }

    /// The link that keeps the daemon's resident set small (Package.swift):
    /// relative relocations packed for the loader, and nothing exported.
    @Test func theShippedBinaryPacksItsRelocationsAndExportsNoSymbols() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let binary = try WaymarkBinary.path
        let (dynamicStatus, dynamic) = try Self.run("readelf", ["-d", binary], in: work, package: "binutils")
        #expect(dynamicStatus == 0 && dynamic.contains("(RELR)"), "\(dynamic.suffix(2000))")
        let (symbolsStatus, symbols) = try Self.run("readelf", ["--dyn-syms", "-W", binary], in: work, package: "binutils")
        let defined = symbols.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count >= 8 && fields[0].first?.isNumber == true && fields[6] != "UND"
        }
        #expect(symbolsStatus == 0 && defined.isEmpty, "\(defined.prefix(20))")
    }

    /// systemd 252 has no `udevadm verify`: the rules are parsed here, every
    /// key and operator checked, and each receiver's ids matched.
    @Test func theUdevRulesParseAndNameEveryKnownReceiver() throws {
        let rules = try String(contentsOf: Checkout.root.appendingPathComponent("udev/60-waymark.rules"), encoding: .utf8)
        let keys = ["ACTION", "SUBSYSTEM", "KERNEL", "ATTRS{idVendor}", "ATTRS{idProduct}", "ENV{WAYMARK_GPS}", "SYMLINK", "GROUP", "MODE",
                    "TAG", "RUN", "GOTO", "LABEL"]
        var labels: Set<String> = [], gotos: Set<String> = [], gps: Set<String> = []
        for line in rules.split(separator: "\n") where !line.hasPrefix("#") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
            var ids: [String: String] = [:]
            for assignment in line.split(separator: ",", omittingEmptySubsequences: false) {
                let text = assignment.trimmingCharacters(in: .whitespaces)
                let match = try #require(text.firstMatch(of: #/^([A-Z]+(\{[A-Za-z_]+\})?)(==|!=|\+=|:=|=)"([^"]*)"$/#), "\(text)")
                let key = String(match.1)
                #expect(keys.contains(key), "unknown key \(key)")
                if key == "LABEL" { labels.insert(String(match.4)) }
                if key == "GOTO" { gotos.insert(String(match.4)) }
                if key.hasPrefix("ATTRS") { ids[key] = String(match.4) }
            }
            if let vendor = ids["ATTRS{idVendor}"], let product = ids["ATTRS{idProduct}"], line.contains(#"ENV{WAYMARK_GPS}="1""#) {
                gps.insert("\(vendor):\(product)")
            }
        }
        #expect(gotos.isSubset(of: labels))
        for receiver in ["1546:01a7", "1546:01a8", "1546:01a9", "067b:2303", "10c4:ea60", "0403:6001"] {
            #expect(gps.contains(receiver), "\(receiver)")
        }
        #expect(rules.contains(#"ENV{WAYMARK_GPS}=="1", SYMLINK+="waymark-gps", GROUP="waymark", MODE="0660""#))
        #expect(rules.contains("gpsdctl add /dev/%k"))
        #expect(rules.contains(#"SUBSYSTEM=="bluetooth", KERNEL=="hci[0-9]*", TAG+="waymark-bluetooth""#))
    }

    @Test func makeInstallPutsEverythingInPlaceAndUninstallRemovesItButTheConfig() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let destination = work.file("root")
        // The test build's binary; SWIFT=true skips a second build.
        let common = ["-C", Checkout.root.path, "DESTDIR=\(destination)", "PREFIX=/usr", "BUILD=debug", "SWIFT=true"]
        let (installed, output) = try Self.run("make", common + ["install"], in: work, package: "make")
        #expect(installed == 0, "\(output)")
        let files = ["/usr/bin/waymark", "/lib/systemd/system/waymark.service", "/usr/share/dbus-1/system.d/io.waymark.Gateway1.conf",
                     "/usr/lib/sysusers.d/waymark.conf", "/usr/lib/tmpfiles.d/waymark.conf", "/usr/lib/udev/rules.d/60-waymark.rules",
                     "/usr/share/man/man1/waymark.1", "/usr/share/man/man5/waymark.conf.5", "/usr/share/bash-completion/completions/waymark",
                     "/etc/waymark/waymark.conf"]
        for file in files { #expect(FileManager.default.fileExists(atPath: destination + file), "\(file)") }
        let unit = try String(contentsOfFile: destination + "/lib/systemd/system/waymark.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/waymark run"))
        #expect(try String(contentsOfFile: destination + "/etc/waymark/waymark.conf", encoding: .utf8).contains("[Session]"))

        #expect(try Self.run("make", common + ["uninstall"], in: work, package: "make").0 == 0)
        for file in files.dropLast() { #expect(!FileManager.default.fileExists(atPath: destination + file), "\(file)") }
        #expect(FileManager.default.fileExists(atPath: destination + "/etc/waymark/waymark.conf"), "the config is the user's")
    }
}
