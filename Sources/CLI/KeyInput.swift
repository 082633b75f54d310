import Advertisements
import Command
import Config
import FoundationEssentials
internal import Glibc
import Logging

/// A 16-byte key from the command line without showing it in
/// `/proc/PID/cmdline`: `--NAME-file FILE` or `--NAME -` (standard input).
/// `--NAME HEX` still works for a quick test. The key itself is never printed.
struct KeyInput {
    /// `bindkey` or `irk`: the option is `--bindkey`, its file form `--bindkey-file`.
    let name: String
    /// What it is, for help and errors.
    let what: String

    /// A BTHome encryption key.
    static let bindkey = KeyInput(name: "bindkey", what: "BTHome encryption key")
    /// An Identity Resolving Key, most significant byte first.
    static let irk = KeyInput(name: "irk", what: "Identity Resolving Key (most significant byte first)")

    var options: [OptionSpec] {
        [
            OptionSpec(name: "--\(name)", valueName: "HEX|-", help: "\(what); - reads it from standard input"),
            OptionSpec(name: "--\(name)-file", valueName: "FILE", help: "read the \(what) from FILE (the safe way)"),
        ]
    }

    /// The 16-byte key, nil when none was given; the exit code (already reported) when it cannot be read.
    func read(_ invocation: Invocation, for command: String) -> Result<[UInt8]?, ExitCode> {
        let text: String
        switch (invocation.values["--\(name)"], invocation.values["--\(name)-file"]) {
        case (nil, nil):
            return .success(nil)
        case (.some, .some):
            Log.error("\(command): give --\(name) or --\(name)-file, not both")
            return .failure(.usage)
        case ("-"?, nil):
            guard let line = readLine(strippingNewline: true) else {
                Log.error("\(command): --\(name) -: nothing on standard input")
                return .failure(.dataError)
            }
            text = line
        case (let value?, nil):
            text = value
        case (nil, let path?):
            do {
                text = try SecretFile.read(path)
            } catch {
                Log.error("\(command): \(error)")
                return .failure(error.code == EACCES ? .noPermission : .ioError)
            }
        }
        guard let key = Advertisement.parseHex(text.filter { !$0.isWhitespace }), key.count == 16 else {
            Log.error("\(command): the \(name) must be 32 hex digits")
            return .failure(.dataError)
        }
        return .success(key)
    }

    static func hex(_ key: [UInt8]) -> String {
        key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
