import Command
import Testing

/// The command line's parser against a small table of its own.
struct InvocationTests {
    static let commands = [
        CommandSpec(name: "export", summary: "Export.", options: [
            OptionSpec(name: "--trip", valueName: "ID", help: "the trip", required: true),
            OptionSpec(name: "--format", valueName: "gpx|csv", help: "the format"),
            OptionSpec(name: "--force", help: "replace"),
        ]) { _ in .ok },
        CommandSpec(name: "unpair", summary: "Unpair.", arguments: "ID") { _ in .ok },
    ]

    @Test func globalOptionsMayComeBeforeOrAfterTheCommandAndValuesInlineOrApart() throws {
        let parsed = try Invocation(parsing: ["--data-dir", "/d", "export", "--trip=t-1", "--format", "csv", "--force", "--config=/c"],
                                    commands: Self.commands)
        #expect(parsed.command == "export" && parsed.dataDirectory == "/d" && parsed.configPath == "/c" && parsed.configExplicit)
        #expect(parsed.values == ["--trip": "t-1", "--format": "csv"] && parsed.flag("--force"))
        #expect(parsed.storePath == "/d/waymark.db")
    }

    @Test(arguments: [
        (["bogus"], #"unknown command "bogus"; see waymark --help"#),
        (["export", "--nope"], "unknown option --nope for export; see waymark export --help"),
        (["--nope"], "unknown option --nope for waymark; see waymark --help"),
        (["export", "--trip"], "--trip needs a value"),
        (["--config"], "--config needs a value"),
    ])
    func aCommandLineThatCannotBeParsedIsAUsageErrorSayingWhy(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try Invocation(parsing: arguments, commands: Self.commands) }
        do {
            _ = try Invocation(parsing: arguments, commands: Self.commands)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aLoneDashIsAnArgumentNotAnOption() throws {
        let parsed = try Invocation(parsing: ["unpair", "-"], commands: Self.commands)
        #expect(parsed.arguments == ["-"])
    }

    @Test func theUsageLineShowsARequiredOptionBareAndTheOthersInBrackets() {
        #expect(Self.commands[0].usage == "usage: waymark [--config FILE] [--data-dir DIR] export --trip ID [--format gpx|csv] [--force]")
    }

    @Test(arguments: [
        ("FILE", ValueCompletion.files), ("FILE.html", .files), ("DIR", .directories), ("gpx|geojson|csv", .words(["gpx", "geojson", "csv"])),
        ("[retry-dead|flush]", .words(["retry-dead", "flush"])), ("test", .words(["test"])), ("ID", .nothing), ("HEX|-", .nothing),
        ("0xCCCC:HEX", .nothing), ("AA:BB:…", .nothing),
    ])
    func aPlaceholderSaysWhatAShellOffers(placeholder: String, completion: ValueCompletion) {
        #expect(ValueCompletion(placeholder: placeholder) == completion)
    }

    @Test func everyExitCodeTheReadmeDocumentsIsACodeOfTheEnum() {
        let documented = ExitCode.documented.flatMap { row in
            row.codes.split(whereSeparator: { !$0.isNumber }).compactMap { Int32($0) }
        }
        for code in documented where !(10...14).contains(code) {
            #expect(ExitCode(rawValue: code) != nil, "\(code)")
        }
    }
}
