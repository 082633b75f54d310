/// Why a test peer could not be used. A missing program names the Debian
/// package that provides it, so a failing run says what to install.
public enum PeerError: Error, CustomStringConvertible {
    case missingProgram(String, aptPackage: String)
    case startFailed(String, output: String)
    case timedOut(String)

    public var description: String {
        switch self {
        case .missingProgram(let program, let package):
            "\(program) is not installed: apt-get install \(package)"
        case .startFailed(let program, let output):
            "\(program) failed to start: \(output)"
        case .timedOut(let what):
            "timed out waiting for \(what)"
        }
    }
}
