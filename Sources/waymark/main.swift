import CLI

#if canImport(Glibc)
import Glibc
#endif

exit(await WaymarkCLI.main(Array(CommandLine.arguments.dropFirst())))
