/// Suspends, without a timer or a wake-up, until the current task is cancelled.
public func waitUntilCancelled() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    await withTaskCancellationHandler {
        for await _ in stream {}
    } onCancel: {
        continuation.finish()
    }
}
