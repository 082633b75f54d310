internal import Basics
internal import FoundationEssentials
internal import Logging
public import Telemetry
public import Upload
import Vocabulary

/// The outbox's MQTT sink. While connected and authorized it publishes the
/// samples its cursor has not passed, as QoS 1 batches on `{prefix}/samples`,
/// up to `window` in flight. PUBACKs move the cursor over the batches the
/// broker has, in order; the cursor is committed once the window empties,
/// after every half window of PUBACKs, and on a disconnect (a gateway killed
/// in between sends those batches again: at least once). A refusal leaves
/// the batch queued. Around the batches: `availability` (retained,
/// `offline` as the last will), the retained `state`, `location` and
/// `sensor/{id}`, every event on `events`, and Home Assistant discovery.
///
/// A dropped connection is retried at a capped, jittered backoff on `clock`,
/// with a list of brokers (a cluster's nodes) on the next one, round the
/// list, under the same client id and so the same session; `flush()` (the
/// network is back) retries at once. The retained `state` names the
/// broker. `run()` connects and handles the broker until cancelled;
/// `stop()` disconnects.
public actor MQTTPublisher<C: Clock> where C.Duration == Duration {
    public struct Options: Sendable {
        public var deviceID: String
        /// `waymark/{device_id}`.
        public var topicPrefix: String
        public var batchCount: Int
        public var batchBytes: Int
        /// Home Assistant's discovery prefix; nil for no discovery.
        public var discovery: HomeAssistantDiscovery?
        /// Take `cmd/start`, `cmd/stop` and `cmd/flush` from the broker.
        public var commands = false
        public var retryBase: Duration = .seconds(1)
        /// Batches in flight at once.
        public var window = 8
        public var retryCap: Duration

        public init(deviceID: String, topicPrefix: String, batchCount: Int, batchBytes: Int, discovery: HomeAssistantDiscovery?, retryCap: Duration) {
            (self.deviceID, self.topicPrefix, self.batchCount, self.batchBytes) = (deviceID, topicPrefix, batchCount, batchBytes)
            (self.discovery, self.retryCap) = (discovery, retryCap)
        }
    }

    public enum Event: Sendable, Equatable {
        case connected(BrokerAddress)
        case published(first: Int64, last: Int64)
        /// A problem, once per distinct message; what it says is what to fix.
        case failed(MQTTError)
        case disconnected
        /// From `{prefix}/cmd/…` (with `commands` on).
        case command(BrokerCommand)
    }

    public nonisolated let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let client: MQTTClient
    private let brokers: [BrokerAddress]
    /// The broker connected to, or tried next.
    public private(set) var broker: BrokerAddress
    private let outbox: Outbox
    private let isAuthorized: @Sendable () async -> Bool
    private let state: @Sendable () async -> GatewayState
    private var options: Options
    private let clock: C
    private var backoff: Backoff
    /// The broker connection: one state, not two flags.
    private enum Link { case down, connecting, up }
    private var link = Link.down
    private var connected: Bool { link == .up }
    /// Whether a broker has the connection now.
    public var isConnected: Bool { connected }
    /// Published, oldest first, each with its message id and whether its PUBACK came.
    private var inFlight: [(mid: Int32, batch: Batch, acknowledged: Bool)] = []
    /// The last sequence number the broker has, and the last one committed as the cursor.
    private var brokerHas: Int64 = 0
    private var committed: Int64 = 0
    /// Batches acknowledged since the last commit.
    private var uncommitted = 0
    /// The state last published on this connection.
    private var stateSent: GatewayState?
    /// When the pending retry is due.
    private let retryAlarm: Alarm<C>
    /// The pending retry: it connects again, or only publishes again.
    private enum Retry { case reconnect, republish }
    private var retry: Retry?
    /// Whether a drain runs, and whether a trigger came while it did.
    private enum Drainer { case idle, running, runningAgain }
    private var drainer = Drainer.idle
    /// The MQTT version the last connection spoke; nil before the first.
    private var spoken: MQTTProtocol?
    private var lastProblem: MQTTError?
    /// Sensor measurements announced to Home Assistant on this connection.
    private var announced: Set<String> = []
    private let labels: SensorLabels

    /// `labels`: each paired sensor's id in the samples and its label.
    public init(settings: MQTTSettings, outbox: Outbox, options: Options, labels: SensorLabels, clock: C,
                isAuthorized: @escaping @Sendable () async -> Bool, state: @escaping @Sendable () async -> GatewayState) throws(MQTTError) {
        var settings = settings
        settings.will = MQTTMessage(options.topicPrefix + "/availability", "offline", retain: true)
        client = try MQTTClient(settings)
        (brokers, broker) = (settings.brokers, settings.brokers[0])
        (self.outbox, self.options, self.labels, self.clock) = (outbox, options, labels, clock)
        (self.isAuthorized, self.state) = (isAuthorized, state)
        backoff = Backoff(base: options.retryBase, cap: options.retryCap)
        retryAlarm = Alarm(clock: clock)
        (events, sink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Connects, and handles the broker's events and the retries, until the
    /// task is cancelled; then stops.
    public func run() async {
        if link == .down { connect() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.retryAlarm.run { await self.retried() } }
            for await event in client.events { await handle(event) }
            group.cancelAll()
        }
        stop()
    }

    /// Disconnects; the broker publishes `offline` (the will) for it.
    public func stop() {
        cancelRetry()
        commitCursor()
        if connected { client.disconnect(sendingWill: true) }
        link = .down
        sink.finish()
    }

    /// New samples were committed: the latest fix and sensor readings go to
    /// their retained topics now, and the batches follow.
    public func samplesAdded(_ samples: [Sample]) async {
        guard connected, await isAuthorized(), connected else { return }
        var fix: Fix?
        var readings: [SensorID: Sample] = [:]
        for sample in samples {
            switch sample.payload {
            case .fix(let latest): fix = latest
            case .sensor(let id, _): readings[id] = sample
            default: break
            }
        }
        if let fix, let attributes = TrackerAttributes(fix) {
            send(MQTTMessage(options.topicPrefix + "/location", JSONBytes.encode(attributes), retain: true))
        }
        for (id, sample) in readings.sorted(by: { $0.key < $1.key }) {
            guard case .sensor(_, let advert) = sample.payload else { continue }
            let reading = SensorReading(advert, time: sample.time)
            announce(sensor: id, reading)
            send(MQTTMessage(options.topicPrefix + "/sensor/" + id.rawValue, JSONBytes.encode(reading), retain: true))
        }
        await drain()
    }

    /// Reconnects at once if down (the network came back), and sends what waits.
    /// Samples per message from now on (a setting the fleet pushes).
    public func retune(batchCount: Int) {
        options.batchCount = max(batchCount, 1)
    }

    public func flush() async {
        if link == .down {
            cancelRetry()
            connect()
        }
        await drain()
    }

    private func connect() {
        link = .connecting
        client.connect(to: broker)
    }

    /// After a failed connection or a lost one: the next broker of the list, if there are more.
    private func moveOn() {
        guard brokers.count > 1, let index = brokers.firstIndex(of: broker) else { return }
        broker = brokers[(index + 1) % brokers.count]
        Log.notice("mqtt: trying \(broker) next")
    }

    private func handle(_ event: MQTTClient.Event) async {
        switch event {
        case .connected:
            cancelRetry()
            // `inFlight` stays: libmosquitto is sending those batches again now.
            (link, announced, stateSent) = (.up, [], nil)
            backoff.reset()
            lastProblem = nil
            sink.yield(.connected(broker))
            // The version spoken, said when it is first known and when it changes.
            let version = client.version
            Log.notice("mqtt: connected to \(broker)" + (version == spoken ? "" : " (\(version.name))"))
            spoken = version
            send(MQTTMessage(options.topicPrefix + "/availability", "online", retain: true))
            if let discovery = options.discovery {
                for message in discovery.gatewayMessages() { send(message) }
                // The retained configs come back: those of sensors no longer paired are removed.
                subscribe(discovery.sensorConfigs)
            }
            if options.commands { subscribe(options.topicPrefix + "/cmd/+") }
            await publishState()
            await drain()
        case .connectFailed(let error):
            link = .down
            report(error)
            moveOn()
            scheduleRetry(reconnect: true)
        case .disconnected(let error):
            // What is in flight stays in flight: the session is not clean, so
            // libmosquitto sends it again (same message ids, DUP set) once the
            // connection is back, and its PUBACKs land here. Publishing it
            // again from the cursor as well would put every such batch on
            // the broker twice, the second copy after the first's PUBACK.
            link = .down
            commitCursor()
            if let error { report(error) }
            sink.yield(.disconnected)
            // The lost connection starts its own backoff: refused batches
            // before it grew the republish's, and would hold the reconnect
            // back for as long (minutes, after a while).
            backoff.reset()
            moveOn()
            scheduleRetry(reconnect: true)
        case .published(let mid, let reasonCode):
            guard let index = inFlight.firstIndex(where: { $0.mid == mid }) else { return }
            guard reasonCode < 0x80 else {
                report(MQTTError(topic: options.topicPrefix + "/samples", reasonCode: reasonCode))
                // What is in flight goes again from the cursor, after the backoff.
                inFlight = []
                commitCursor()
                return scheduleRetry(reconnect: false)
            }
            inFlight[index].acknowledged = true
            while let first = inFlight.first, first.acknowledged {
                inFlight.removeFirst()
                brokerHas = first.batch.lastSeq
                uncommitted += 1
                sink.yield(.published(first: first.batch.firstSeq, last: first.batch.lastSeq))
            }
            if inFlight.isEmpty || uncommitted >= max(options.window / 2, 1) { commitCursor() }
            await drain()
        case .message(let topic, let payload):
            received(topic, payload)
        }
    }

    private func received(_ topic: String, _ payload: [UInt8]) {
        let commands = options.topicPrefix + "/cmd/"
        if options.commands, topic.hasPrefix(commands) {
            let name = String(topic.dropFirst(commands.count))
            guard let command = BrokerCommand(rawValue: name) else { return Log.notice("mqtt: ignoring unknown command \(name.debugDescription)") }
            Log.notice("mqtt: command \(name) from the broker")
            sink.yield(.command(command))
            return
        }
        guard let discovery = options.discovery, !payload.isEmpty, let id = discovery.sensorID(inConfigTopic: topic) else { return }
        let paired = Set(labels.ids.map { SensorID(rawValue: HomeAssistantDiscovery.safe($0.rawValue)) })
        if !paired.contains(id) {
            Log.info("mqtt: removing the Home Assistant entities of \(id), no longer paired")
            send(MQTTMessage(topic, [], retain: true))
        }
    }

    private func subscribe(_ pattern: String) {
        do { try client.subscribe(pattern) } catch { report(error) }
    }

    /// Publishes the next batches while the window has room, one drain at a
    /// time: a trigger that comes while one runs (a PUBACK, new samples, a
    /// flush, the connection, a retry) has it go round once more, so no two
    /// drains read the same `after:` across an await and publish one batch twice.
    private func drain() async {
        switch drainer {
        case .running, .runningAgain:
            drainer = .runningAgain
            return
        case .idle:
            drainer = .running
        }
        while true {
            await drainOnce()
            guard drainer == .runningAgain else { break }
            drainer = .running
        }
        drainer = .idle
    }

    private func drainOnce() async {
        while connected, retry == nil, inFlight.count < max(options.window, 1) {
            let batch: Batch?
            do {
                batch = try outbox.oldest(count: options.batchCount, bytes: options.batchBytes, for: .mqtt,
                                          after: inFlight.last?.batch.lastSeq ?? brokerHas)
            } catch {
                // Tried again after the backoff, as a refused batch is.
                Log.error("mqtt: cannot read the outbox: \(error); retrying later")
                return scheduleRetry(reconnect: false)
            }
            guard let batch else {
                if inFlight.isEmpty { await publishState() }
                return
            }
            guard await isAuthorized(), connected else { return }
            for sample in batch.samples where sample.kind == .event {
                send(MQTTMessage(options.topicPrefix + "/events", Array(Batch.object(sample).utf8)))
            }
            do {
                let mid = try client.publish(options.topicPrefix + "/samples", batch.json(deviceID: options.deviceID, seqRange: true))
                inFlight.append((mid, batch, false))
            } catch {
                report(error)
                return scheduleRetry(reconnect: false)
            }
        }
    }

    /// Makes what the broker has durable: the cursor moves, and what every
    /// sink has leaves the outbox.
    private func commitCursor() {
        guard brokerHas > committed else { return }
        do {
            try outbox.acknowledge(through: brokerHas, by: .mqtt, at: Date().timeIntervalSince1970)
            (committed, uncommitted) = (brokerHas, 0)
        } catch {
            // Still in memory: not sent again while running; tried at the next commit.
            Log.error("mqtt: samples up to \(brokerHas) were acknowledged but the queue cannot note it: \(error)")
        }
    }

    /// The retained state, when it differs from what this connection last sent.
    private func publishState() async {
        var current = await state()
        // The actor may have stopped or lost the broker while it waited.
        guard connected else { return }
        current.queueDepth = (try? outbox.pending(for: .mqtt)) ?? current.queueDepth
        current.broker = broker.description
        guard current != stateSent else { return }
        stateSent = current
        send(MQTTMessage(options.topicPrefix + "/state", JSONBytes.encode(current), retain: true))
    }

    /// Home Assistant entities for the measurements a sensor's reading has,
    /// the first time each is seen on this connection.
    private func announce(sensor id: SensorID, _ reading: SensorReading) {
        guard let discovery = options.discovery else { return }
        for measurement in reading.measurements where !announced.contains(id.rawValue + "/" + measurement.rawValue) {
            announced.insert(id.rawValue + "/" + measurement.rawValue)
            send(discovery.sensorMessage(id: id.rawValue, label: labels[id] ?? id.rawValue, measurement: measurement))
        }
    }

    /// A message besides the batches: at QoS 1 through libmosquitto's own
    /// queue, not tracked (the latest state wins anyway).
    private func send(_ message: MQTTMessage) {
        do { try client.publish(message.topic, message.payload, retain: message.retain) } catch { report(error) }
    }

    private func report(_ error: MQTTError) {
        guard error != lastProblem else { return }
        lastProblem = error
        Log.warning(error.description)
        sink.yield(.failed(error))
    }

    /// Connects again (`reconnect`), or publishes the refused or failed
    /// batch again, after the backoff. A pending reconnect also publishes
    /// again; a pending republish does not reconnect, so a reconnect
    /// replaces it (kept, it left a broker that went away meanwhile never
    /// connected to again).
    private func scheduleRetry(reconnect: Bool) {
        if let pending = retry {
            guard reconnect, pending == .republish else { return }
        }
        retry = reconnect ? .reconnect : .republish
        retryAlarm.set(after: backoff.next())
    }

    private func cancelRetry() {
        retry = nil
        retryAlarm.set(nil)
    }

    private func retried() async {
        // Cancelled while the alarm rang.
        guard let pending = retry else { return }
        retry = nil
        if pending == .reconnect { connect() } else { await drain() }
    }
}
