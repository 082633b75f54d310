import Advertisements
import FoundationEssentials
import Gateway
internal import Glibc
import Logging

/// A BTHome bindkey from the command line without showing it in
/// `/proc/PID/cmdline`: `--bindkey-file FILE` or `--bindkey -` (standard
/// input). `--bindkey HEX` still works for a quick test. The key itself is
/// never printed.
enum BindkeyInput {
    static let options = [
        OptionSpec(name: "--bindkey", valueName: "HEX|-", help: "BTHome encryption key; - reads it from standard input"),
        OptionSpec(name: "--bindkey-file", valueName: "FILE", help: "read the BTHome encryption key from FILE (the safe way)"),
    ]

    /// The 16-byte key, nil when none was given; the exit code (already reported) when it cannot be read.
    static func read(_ invocation: Invocation, for command: String) -> Result<[UInt8]?, ExitCode> {
        let text: String
        switch (invocation.values["--bindkey"], invocation.values["--bindkey-file"]) {
        case (nil, nil):
            return .success(nil)
        case (.some, .some):
            Log.error("\(command): give --bindkey or --bindkey-file, not both")
            return .failure(.usage)
        case ("-"?, nil):
            guard let line = readLine(strippingNewline: true) else {
                Log.error("\(command): --bindkey -: nothing on standard input")
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
            Log.error("\(command): the bindkey must be 32 hex digits")
            return .failure(.dataError)
        }
        return .success(key)
    }

    static func hex(_ key: [UInt8]) -> String {
        key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
