package enum UsageError: Error, CustomStringConvertible {
    case unknownCommand(String)
    case unknownOption(String, command: String?)
    case missingValue(String)
    case unexpectedArgument(String)

    package var description: String {
        switch self {
        case .unknownCommand(let name): "unknown command \(name.debugDescription); see waymark --help"
        case .unknownOption(let name, let command): "unknown option \(name) for \(command ?? "waymark"); see waymark \(command.map { $0 + " " } ?? "")--help"
        case .missingValue(let name): "\(name) needs a value"
        case .unexpectedArgument(let text): "unexpected argument \(text.debugDescription)"
        }
    }
}
