import Fuzzing
internal import Glibc

// waymark-fuzz [--count N] [--target NAME]: structure-aware fuzzing of every
// parser that reads bytes from outside. Each target gets every length of its
// line prefixes, then mutations of valid inputs, N inputs in all (default 10 M).
var count = 10_000_000
var only: String?
/// With `--keep FILE`, each input is written there before it is parsed: after a hang or a trap, FILE holds the culprit.
var keep: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--count": count = arguments.popFirst().flatMap { Int($0) } ?? count
    case "--target": only = arguments.popFirst()
    case "--keep": keep = arguments.popFirst()
    default:
        print("usage: waymark-fuzz [--count N] [--target \(FuzzCatalog.targets.map(\.name).joined(separator: "|"))] [--keep FILE]")
        exit(64)
    }
}
var total = 0
for target in FuzzCatalog.targets where only == nil || only == target.name {
    let start = ContinuousClock.now
    let result = FuzzRun(target).run(count: count, before: { input in
        guard let keep else { return }
        let fd = open(keep, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        _ = input.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    })
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    total += result.inputs
    print("\(target.name): \(result.inputs) inputs, \(result.accepted) accepted, \((seconds * 10).rounded() / 10) s, "
        + "\(Int(Double(result.inputs) / max(seconds, 1e-9))) inputs/s")
}
print("fuzz: \(total) inputs, no crash")
