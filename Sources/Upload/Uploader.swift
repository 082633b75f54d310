internal import HTTP
internal import Basics
internal import Logging

/// Sends the outbox to `POST {api}/v1/devices/{device_id}/samples`, oldest
/// first, in gzip'd batches with an idempotency key, and deletes a batch only
/// once the backend acknowledged it. Temporary failures back off (full
/// jitter, `Retry-After` honoured, capped); a 413 splits the batch; other
/// refusals go to the dead letters. Nothing is sent while the session is not
/// authorized. It runs only when asked: at start-up, when samples arrive,
/// at trip end, after a login; an empty queue means no wake-ups.
public actor Uploader<C: Clock> where C.Duration == Duration {
    public nonisolated let events: AsyncStream<UploadEvent>
    private let sink: AsyncStream<UploadEvent>.Continuation
    public nonisolated let outbox: Outbox
    let deviceID: String
    let authorization: any UploadAuthorization
    /// Where samples go; an error (a stored account that no longer reads) holds them back, reported.
    let baseURL: @Sendable () async throws -> String
    private(set) var options: UploadOptions
    let clock: C
    let now: @Sendable () -> Double

    private let wakes: AsyncStream<Bool>
    private let waker: AsyncStream<Bool>.Continuation
    /// A partial batch's wait for `batchAge`, and the retry after a
    /// temporary failure: deadlines `run` sleeps towards.
    nonisolated let ageAlarm: Alarm<C>
    nonisolated let retryAlarm: Alarm<C>
    private var ageWaiting = false
    /// A retry is pending: routine wakes wait for it.
    private var retryPending = false
    private var backoff: Backoff
    /// Samples added since the last exact count, so `samplesAdded` need not count the table.
    private var addedSinceCount = 0
    private var lastCount = 0
    /// An unusable `Retry-After` is logged once, not on every retry.
    private var retryAfterLogged = false
    /// Whether the backend answers, so that a failure is logged when it starts or changes, not at every attempt.
    private var link = BackendLink()

    private enum Outcome {
        case acknowledged
        case deadLetter(status: Int, reason: String)
        case retry(status: Int?, after: Duration?)
        case notAuthorized
    }

    public init(outbox: Outbox, deviceID: String, authorization: any UploadAuthorization, baseURL: @escaping @Sendable () async throws -> String,
                options: UploadOptions, clock: C, now: @escaping @Sendable () -> Double) {
        self.outbox = outbox
        self.deviceID = deviceID
        self.authorization = authorization
        self.baseURL = baseURL
        self.options = options
        self.clock = clock
        self.now = now
        backoff = Backoff(base: options.retryBase, cap: options.retryCap)
        (events, sink) = AsyncStream.makeStream(of: UploadEvent.self, bufferingPolicy: .bufferingNewest(1024))
        (wakes, waker) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        (ageAlarm, retryAlarm) = (Alarm(clock: clock), Alarm(clock: clock))
    }

    /// Sends everything queued now (start-up, trip end, login, network back),
    /// without waiting out a pending backoff.
    public nonisolated func flush() { waker.yield(true) }

    /// New samples were committed: send full batches now, a partial one
    /// once it has waited `batchAge` (or now, unless `waitForBatch`). A
    /// pending retry's backoff holds either way.
    public func samplesAdded(_ count: Int = 1, waitForBatch: Bool = true) {
        addedSinceCount += count
        if !waitForBatch || lastCount + addedSinceCount >= options.batchCount || lastCount + addedSinceCount > options.maxQueuedSamples {
            waker.yield(false)
        } else if !ageWaiting {
            ageWaiting = true
            ageAlarm.set(after: options.batchAge)
        }
    }

    private func ageReached() {
        ageWaiting = false
        waker.yield(false)
    }

    /// Samples per request from now on (a setting the fleet pushes); a
    /// queue that now holds a full batch is sent at once.
    public func retune(batchCount: Int) {
        guard batchCount != options.batchCount else { return }
        options.batchCount = max(batchCount, 1)
        if lastCount + addedSinceCount >= options.batchCount { waker.yield(false) }
    }

    /// Sends batches as wakes come, until the task is cancelled. A wake is
    /// explicit (`flush`, a retry falling due) or routine (new samples):
    /// routine wakes leave a pending backoff alone.
    public nonisolated func run() async {
        let waker = waker
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.ageAlarm.run { await self.ageReached() } }
            group.addTask { await self.retryAlarm.run { waker.yield(true) } }
            for await explicit in wakes { await wake(explicit: explicit) }
            group.cancelAll()
        }
    }

    private func wake(explicit: Bool) async {
        if !explicit, retryPending { return }
        retryPending = false
        retryAlarm.set(nil)
        await drain()
    }

    private func drain() async {
        // The cap is checked once per drain, and its count of the table is
        // the depth too: counting per batch would cost a scan each time.
        do {
            let cap = try outbox.enforceCap(maxRows: options.maxQueuedSamples, maxBytes: options.maxQueuedBytes, at: now())
            if let dropped = cap.dropped {
                Log.warning("upload: the queue is full; dropped samples \(dropped.firstSeq)–\(dropped.lastSeq)")
                sink.yield(.dataDropped(dropped))
            }
            addedSinceCount = 0
            lastCount = cap.depth
        } catch {
            // The depth stays what it was known to be, plus what came since.
            Log.error("upload: cannot enforce the queue's cap (\(options.maxQueuedSamples) samples, \(options.maxQueuedBytes) bytes): \(error); tried again at the next drain")
            sink.yield(.capNotEnforced("\(error)"))
        }
        while !Task.isCancelled {
            let batch: Batch?
            do {
                batch = try outbox.oldest(count: options.batchCount, bytes: options.batchBytes)
            } catch {
                Log.error("upload: cannot read the outbox: \(error); retrying later")
                scheduleRetry(status: nil, after: nil)
                return
            }
            guard let batch else {
                lastCount = 0
                sink.yield(.drained)
                return
            }
            guard await authorization.isAuthorized else {
                Log.notice("upload: \(batch.samples.count)+ samples wait for a login")
                sink.yield(.waitingForLogin)
                return
            }
            guard await deliver(batch) else { return }
        }
    }

    /// Sends one batch (splitting it on 413); false when draining must stop
    /// (not authorized, or cancelled during a backoff).
    private func deliver(_ batch: Batch) async -> Bool {
        switch await send(batch) {
        case .acknowledged:
            do {
                try outbox.acknowledge(batch, at: now())
            } catch {
                // The backend has the samples, but they are still queued here:
                // back off and resend; the idempotency key makes that safe.
                Log.error("upload: samples \(batch.firstSeq)–\(batch.lastSeq) were acknowledged but cannot be removed from the queue: \(error); resending later")
                scheduleRetry(status: nil, after: nil)
                return false
            }
            backoff.reset()
            sink.yield(.uploaded(first: batch.firstSeq, last: batch.lastSeq))
            return true
        case .deadLetter(let status, let reason):
            if status == 413, batch.samples.count > 1 {
                let (head, tail) = batch.split()
                guard await deliver(head) else { return false }
                return await deliver(tail)
            }
            Log.warning("upload: the backend refused samples \(batch.firstSeq)–\(batch.lastSeq) for good (\(status)); kept as a dead letter")
            do {
                try outbox.deadLetter(batch, status: status, reason: reason, at: now())
            } catch {
                Log.error("upload: cannot move samples to the dead letters: \(error)")
                return false
            }
            sink.yield(.deadLettered(first: batch.firstSeq, last: batch.lastSeq, status: status))
            return true
        case .retry(let status, let retryAfter):
            BestEffort.write("note the upload error in the queue's status") { try outbox.noteError(status.map { "HTTP \($0)" } ?? "no response") }
            scheduleRetry(status: status, after: retryAfter)
            return false
        case .notAuthorized:
            sink.yield(.waitingForLogin)
            return false
        }
    }

    /// Waits out the backoff (or the server's `Retry-After`, if longer), capped,
    /// then drains again.
    private func scheduleRetry(status: Int?, after retryAfter: Duration?) {
        let delay = min(options.retryCap, max(retryAfter ?? .zero, backoff.next()))
        sink.yield(.retrying(status: status, delay: delay))
        retryPending = true
        retryAlarm.set(after: delay)
    }

    private func send(_ batch: Batch) async -> Outcome {
        Log.debug("upload: sending samples \(batch.firstSeq)–\(batch.lastSeq)")
        let base: String
        do { base = try await baseURL() } catch {
            linkFailed("\(error)")
            return .retry(status: nil, after: nil)
        }
        let url = base + "/v1/devices/\(deviceID)/samples"
        let body = Gzip.compress(batch.json(deviceID: deviceID))
        let key = batch.idempotencyKey(deviceID: deviceID)
        let timeout = options.requestTimeout
        let response: HTTPResponse
        do {
            response = try await authorization.authorized { token in
                HTTPRequest(method: "POST", url: url, headers: [
                    ("Authorization", "Bearer " + token), ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                    ("Idempotency-Key", key),
                ], body: body, timeout: timeout)
            }
        } catch {
            switch error {
            case .notAuthorized: return .notAuthorized
            case .unavailable:
                linkFailed("\(error)")
                return .retry(status: nil, after: nil)
            }
        }
        switch response.status {
        case 200..<300:
            // Only the contract's answer acknowledges: a captive portal or a
            // misrouted proxy also says 200.
            if let acknowledgement = Acknowledgement(response), acknowledgement.accepted == batch.samples.count {
                linkAnswered()
                return .acknowledged
            }
            linkFailed("HTTP \(response.status) (\(response.headers["content-type"] ?? "no content type")) is not an acknowledgement of the samples")
            return .retry(status: response.status, after: nil)
        case 409:
            linkAnswered()
            return .acknowledged
        case 408, 429, 500...599, 401:
            if response.status != 401 { linkFailed("HTTP \(response.status)") }
            return .retry(status: response.status, after: retryAfter(response))
        case 413:
            linkAnswered()
            return .deadLetter(status: 413, reason: "payload too large")
        default:
            linkAnswered()
            return .deadLetter(status: response.status, reason: response.excerpt)
        }
    }

    private func linkFailed(_ reason: String) {
        guard case .down(let reason)? = link.failed(reason) else { return }
        Log.warning("upload: \(reason); retrying with backoff, and saying so again only when this changes")
    }

    private func linkAnswered() {
        guard case .back(let failures)? = link.answered() else { return }
        Log.notice("upload: the backend answers again, after \(failures) failed attempts")
    }

    private func retryAfter(_ response: HTTPResponse) -> Duration? {
        guard let header = response.headers["retry-after"] else { return nil }
        switch RetryAfter.parse(header, now: now()) {
        case .delay(let delay):
            return delay
        case .unusable(let text):
            if !retryAfterLogged {
                Log.notice("upload: ignoring Retry-After \(text.debugDescription) from the backend; using the backoff")
                retryAfterLogged = true
            }
            return nil
        }
    }
}
