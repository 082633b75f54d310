internal import Dispatch
internal import Glibc

/// POSIX signals as an async sequence, through `DispatchSource.makeSignalSource`.
/// The signals are ignored at the process level first, so that only the
/// sources see them.
public struct SignalSource: Sendable {
    public let stream: AsyncStream<Int32>

    public init(_ signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        let retained = UncheckedSources(sources)
        continuation.onTermination = { _ in retained.cancel() }
        self.stream = stream
    }
}

/// Keeps the sources alive for as long as the stream; Dispatch sources are
/// thread-safe to cancel, which is all this does with them.
private final class UncheckedSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { sources.forEach { $0.cancel() } }
}
