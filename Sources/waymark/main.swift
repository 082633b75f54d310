import Dispatch
import Run

#if canImport(Glibc)
import Glibc
#endif

// The main thread waits rather than awaiting at top level: an async main ends
// the main thread with pthread_exit, whose forced unwind reads the binary's
// unwind tables once, and those pages then stay in the daemon's resident set.
let arguments = Array(CommandLine.arguments.dropFirst())
WaymarkCLI.prepareProcess()
Task.detached { exit(await WaymarkCLI.main(arguments)) }
DispatchSemaphore(value: 0).wait()
