import Foundation
import PeerHarness
import Testing

/// The manual's steps on the Pi (docs/install.md), held to what the binary, the unit and the
/// package's scripts do.
struct OnThePiStepsTests {
    /// The install page as running text: its lines joined, so a wrapped command reads whole.
    static let readme = { ((try? String(contentsOfFile: Checkout.path("docs/install.md"), encoding: .utf8)) ?? "")
        .split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ") }()

    /// `sudo -u waymark waymark pair --bindkey-file ~/tag.key` cannot open a
    /// file only its owner may read; `--bindkey - < ~/tag.key` can, since the
    /// shell opens it. Run as user nobody, as the unit's user would be.
    @Test func aKeyFileTheServiceUserCannotReadIsExit77AndTheSameKeyOnStandardInputPairs() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        chmod(work.path, 0o711)
        let key = work.file("tag.key")
        try "231d39c1d7cc1ab1aee224cd096db932\n".write(toFile: key, atomically: true, encoding: .utf8)
        chmod(key, 0o600)
        mkdir(work.file("data"), 0o700)
        chown(work.file("data"), 65534, 65534)
        let pair = ["--config", "/dev/null", "--data-dir", work.file("data"), "pair", "--role", "sensor", "--address", "C0:FF:EE:00:00:09", "--label", "tag"]
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", try WaymarkBinary.path]

        let fromFile = try ChildProcess("setpriv", nobody + pair + ["--bindkey-file", key], aptPackage: "util-linux", logPath: work.file("file.log"))
        #expect(try fromFile.wait(timeout: 30) == 77, "\(fromFile.output)")

        let input = Pipe()
        let fromStdin = try ChildProcess("setpriv", nobody + pair + ["--bindkey", "-"], aptPackage: "util-linux", logPath: work.file("stdin.log"), stdin: input)
        ChildProcess.feed(input, try Data(contentsOf: URL(fileURLWithPath: key)))
        #expect(try fromStdin.wait(timeout: 30) == 0, "\(fromStdin.output)")
        #expect(fromStdin.output.contains("paired sensor #1: address:C0:FF:EE:00:00:09 (tag)"))
        #expect(Self.readme.contains("--bindkey - < ~/tag.key"), "the install page says so")
    }

    /// systemd skips a unit whose `ExecCondition` exits 1 to 254, and fails
    /// it only on 255 or a signal: a config error (78) skips it, as the install page says.
    @Test func aConfigErrorSkipsTheUnitThroughItsStartConditionAsTheManualSays() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let unit = try String(contentsOfFile: Checkout.path("hardware/waymark.service"), encoding: .utf8)
        let condition = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecCondition=") })
        #expect(condition.contains("config --require-backend"))
        #expect(unit.contains("RestartPreventExitStatus=78"))
        try "[Recording]\nBeaconLostTimeout = never\n".write(toFile: work.file("bad.conf"), atomically: true, encoding: .utf8)
        let result = try WaymarkBinary.run(["config", "--require-backend", "--config", work.file("bad.conf")], in: work)
        #expect((1...254).contains(result.status) && result.status == 78, "\(result.status)")
        #expect(result.output.split(separator: "\n").count == 1 && result.output.contains("bad.conf:2: Recording.BeaconLostTimeout"))
        #expect(Self.readme.contains("any `ExecCondition` exit from 1 to 254"))
    }

    /// From source, the install page's udev commands are the package's own.
    @Test func theInstallPagesUdevStepsAreThePackagesPostinst() throws {
        let postinst = try String(contentsOfFile: Checkout.path("hardware/debian/postinst"), encoding: .utf8)
        for command in ["udevadm control --reload", "udevadm trigger --subsystem-match=tty --action=change"] {
            #expect(postinst.contains(command))
            #expect(Self.readme.contains("sudo " + command), "\(command)")
        }
    }
}
