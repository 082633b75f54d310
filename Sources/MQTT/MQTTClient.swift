internal import CMosquitto
internal import Dispatch
internal import Glibc

/// One libmosquitto client (MQTT 5 or 3.1.1), driven by dispatch sources on its own
/// serial queue: a read source on the socket, a write source only while
/// libmosquitto has bytes to send, and a timer at the keep-alive period for
/// its pings. No loop thread and no polling. Every libmosquitto call is made
/// on `queue`; what the broker says comes out of `events`.
public final class MQTTClient: @unchecked Sendable {
    /// Each `connect()` ends in one `.connected` or one `.connectFailed`;
    /// `.disconnected` comes only after `.connected`.
    public enum Event: Sendable, Equatable {
        case connected
        /// The broker refused the connection, or it could not be made.
        case connectFailed(MQTTError)
        case disconnected(MQTTError?)
        /// The broker's PUBACK for message `mid`; a reason code of 0x80 or
        /// more is a refusal (0x87: not authorized, an ACL).
        case published(mid: Int32, reasonCode: Int32)
        case message(topic: String, payload: [UInt8])
    }

    public let events: AsyncStream<Event>
    private let emit: AsyncStream<Event>.Continuation
    private let handle: OpaquePointer
    private let queue = DispatchQueue(label: "waymark.mqtt")
    private let settings: MQTTSettings
    // Confined to `queue`.
    private var reader: (any DispatchSourceRead)?
    private var writer: (any DispatchSourceWrite)?
    private var writerResumed = false
    private var pinger: (any DispatchSourceTimer)?
    private var phase = Phase.idle
    /// The broker the last `connect` went to. Confined to `queue`.
    private var broker: BrokerAddress
    /// The version this client speaks now: `auto` starts at 5 and stays at
    /// 3.1.1 once a broker refused 5. Confined to `queue`.
    private var speaking: MQTTProtocol
    /// The message a goodbye waits for, and whether the broker has
    /// acknowledged it. Confined to `queue`.
    private var awaited: (mid: Int32, acknowledged: Bool)?

    /// `switching`: the broker refused MQTT 5's version, and a 3.1.1
    /// connection follows once libmosquitto has let go of this one.
    private enum Phase { case idle, connecting, switching, connected }

    public init(_ settings: MQTTSettings) throws(MQTTError) {
        Self.initialise
        // No clean start: the broker keeps the session across reconnects.
        guard let handle = mosquitto_new(settings.clientID, false, nil) else { throw .setup("mosquitto_new", errno) }
        self.handle = handle
        self.settings = settings
        broker = settings.brokers[0]
        (events, emit) = AsyncStream.makeStream(of: Event.self)
        speaking = settings.protocolVersion == .v311 ? .v311 : .v5
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(speaking == .v311 ? MQTT_PROTOCOL_V311 : MQTT_PROTOCOL_V5))
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        if let username = settings.username {
            try check(mosquitto_username_pw_set(handle, username, settings.password), "username")
        }
        if settings.tls {
            // Verification is never off: the broker's certificate must chain to
            // the CA file (or the system's CAs) and match the host name.
            let caPath = settings.caFile == nil ? "/etc/ssl/certs" : nil
            try check(mosquitto_tls_set(handle, settings.caFile, caPath, settings.certFile, settings.keyFile, nil), "TLS")
            try check(mosquitto_tls_opts_set(handle, 1, nil, nil), "TLS options")
            try check(mosquitto_tls_insecure_set(handle, false), "TLS host check")
        }
        if let will = settings.will {
            try check(mosquitto_will_set(handle, will.topic, Int32(will.payload.count), will.payload, 1, will.retain), "last will")
        }
        mosquitto_connect_v5_callback_set(handle) { _, object, code, _, _ in
            MQTTClient.from(object).connectAnswered(code)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, object, code, _ in
            MQTTClient.from(object).disconnected(code)
        }
        mosquitto_publish_v5_callback_set(handle) { _, object, mid, reason, _ in
            let client = MQTTClient.from(object)
            if client.awaited?.mid == mid { client.awaited?.acknowledged = true }
            client.emit.yield(.published(mid: mid, reasonCode: reason))
        }
        mosquitto_message_v5_callback_set(handle) { _, object, message, _ in
            guard let message = message?.pointee else { return }
            let topic = String(cString: message.topic)
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            MQTTClient.from(object).emit.yield(.message(topic: topic, payload: payload))
        }
    }

    deinit {
        reader?.cancel()
        pinger?.cancel()
        if let writer {
            if !writerResumed { writer.resume() }
            writer.cancel()
        }
        mosquitto_destroy(handle)
        emit.finish()
    }

    private static let initialise: Void = { mosquitto_lib_init() }()

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient {
        Unmanaged<MQTTClient>.fromOpaque(object!).takeUnretainedValue()
    }

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(code: code, during: what) }
    }

    /// Connects (or reconnects) to `broker` (the first of the settings'
    /// by default), blocking only this client's queue for the TCP and TLS
    /// handshakes; the answer comes as `.connected` or `.connectFailed`.
    /// The client id, and so the broker's session, is the same on each.
    public func connect(to broker: BrokerAddress? = nil) {
        queue.async { [self] in
            self.broker = broker ?? settings.brokers[0]
            connectNow()
        }
    }

    /// The version spoken on the last connection (5 or 3.1.1).
    public var version: MQTTProtocol { queue.sync { speaking } }

    private func connectNow() {
        stopSources()
        phase = .connecting
        let code = mosquitto_connect_bind_v5(handle, broker.host, Int32(broker.port), Int32(settings.keepAlive), nil, nil)
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            phase = .idle
            // A TCP connection that failed is no handshake's fault.
            emit.yield(.connectFailed(code == MOSQ_ERR_TLS.rawValue ? handshakeFailed(code) : MQTTError(code: code, during: "connect to \(address)")))
            return
        }
        startSources()
        flushWrites()
    }

    /// Disconnects; with `sendingWill` (MQTT 5 reason 0x04) the broker
    /// publishes the last will all the same, as for a going-away gateway.
    public func disconnect(sendingWill: Bool) {
        queue.sync {
            // MQTT 3.1.1 has no "disconnect with will": the will goes out as
            // a message first, and the goodbye waits (2 s at most) for its
            // PUBACK: a clustered broker may drop a message whose client has
            // gone before it was stored.
            if sendingWill, speaking == .v311, phase == .connected, let will = settings.will {
                var mid: Int32 = 0
                // It fails only on a connection already lost, and for a lost
                // connection the broker publishes the will itself.
                let code = will.payload.withUnsafeBytes { mosquitto_publish_v5(handle, &mid, will.topic, Int32($0.count), $0.baseAddress, 1, will.retain, nil) }
                if code == MOSQ_ERR_SUCCESS.rawValue { awaitAcknowledgement(of: mid, for: 2_000) }
            }
            mosquitto_disconnect_v5(handle, sendingWill && speaking == .v5 ? 0x04 : 0, nil)
            stopSources()
            phase = .idle
        }
    }

    /// Queues a message and returns its id, which `.published` names once
    /// the broker has it (QoS 1).
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false) throws(MQTTError) -> Int32 {
        let result: Result<Int32, MQTTError> = queue.sync {
            var mid: Int32 = 0
            let code = payload.withUnsafeBytes { mosquitto_publish_v5(handle, &mid, topic, Int32($0.count), $0.baseAddress, qos, retain, nil) }
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return .failure(MQTTError(code: code, during: "publish to \(topic)")) }
            flushWrites()
            return .success(mid)
        }
        return try result.get()
    }

    public func subscribe(_ pattern: String, qos: Int32 = 1) throws(MQTTError) {
        let code = queue.sync {
            let code = mosquitto_subscribe_v5(handle, nil, pattern, qos, 0, nil)
            flushWrites()
            return code
        }
        try check(code, "subscribe to \(pattern)")
    }

    // MARK: On the queue

    private func connectAnswered(_ code: Int32) {
        guard phase == .connecting else { return }
        // 5 refused for its version (0x84; a 3.1.1 broker's CONNACK says 1): with `auto`, 3.1.1 at once, on a new connection.
        if code == 0x84 || code == 1, speaking == .v5, settings.protocolVersion == .auto {
            speaking = .v311
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
            phase = .switching
            // Not from inside libmosquitto's callback: after it has returned.
            queue.async { [self] in if phase == .switching { connectNow() } }
            return
        }
        phase = code == 0 ? .connected : .idle
        emit.yield(code == 0 ? .connected : .connectFailed(MQTTError(reasonCode: code)))
    }

    private func disconnected(_ code: Int32) {
        stopSources()
        ended(code)
    }

    /// The connection is gone (or never came): said once, as what it was to
    /// the caller. Before the broker's answer on TLS, that is the handshake.
    private func ended(_ code: Int32) {
        let was = phase
        // A connection switching to 3.1.1 stays switching: its next one is on the way.
        if was != .switching { phase = .idle }
        switch was {
        case .idle, .switching:
            break
        case .connecting:
            emit.yield(.connectFailed(settings.tls ? handshakeFailed(code) : MQTTError(code: code, during: "connect to \(address)")))
        case .connected:
            emit.yield(.disconnected(code == 0 ? nil : MQTTError(code: code, during: "the connection")))
        }
    }

    private var address: String { broker.description }

    /// Reads and writes the socket on this queue until the broker
    /// acknowledges `mid` or `milliseconds` pass: for the last message
    /// before a goodbye, when nothing else will run the sources.
    private func awaitAcknowledgement(of mid: Int32, for milliseconds: Int) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        awaited = (mid, false)
        defer { awaited = nil }
        while awaited?.acknowledged == false {
            flushWrites()
            let now = DispatchTime.now().uptimeNanoseconds
            var descriptor = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLIN), revents: 0)
            guard now < deadline, descriptor.fd >= 0, poll(&descriptor, 1, Int32((deadline - now) / 1_000_000) + 1) > 0,
                  mosquitto_loop_read(handle, 1) == MOSQ_ERR_SUCCESS.rawValue else { return }
        }
    }

    private func handshakeFailed(_ code: Int32) -> MQTTError {
        .handshake(host: address, text: String(cString: mosquitto_strerror(code)))
    }

    private func startSources() {
        let fd = mosquitto_socket(handle)
        guard fd >= 0 else { return }
        let reader = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        reader.setEventHandler { [weak self] in
            guard let self else { return }
            let code = mosquitto_loop_read(handle, 16)
            if code != MOSQ_ERR_SUCCESS.rawValue {
                // For a lost connection libmosquitto has called the disconnect
                // callback already (then this says nothing more).
                stopSources()
                return ended(code)
            }
            flushWrites()
        }
        let writer = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        writer.setEventHandler { [weak self] in self?.flushWrites() }
        let pinger = DispatchSource.makeTimerSource(queue: queue)
        let period = DispatchTimeInterval.seconds(max(settings.keepAlive / 2, 1))
        pinger.schedule(deadline: .now() + period, repeating: period, leeway: .seconds(1))
        pinger.setEventHandler { [weak self] in
            guard let self else { return }
            mosquitto_loop_misc(handle)
            flushWrites()
        }
        (self.reader, self.writer, self.pinger, writerResumed) = (reader, writer, pinger, false)
        reader.resume()
        pinger.resume()
    }

    private func stopSources() {
        reader?.cancel()
        pinger?.cancel()
        if let writer {
            // A suspended source must be resumed before it is released.
            if !writerResumed { writer.resume() }
            writer.cancel()
        }
        (reader, writer, pinger, writerResumed) = (nil, nil, nil, false)
    }

    /// Writes what libmosquitto holds; the write source waits for room only
    /// while some is left.
    private func flushWrites() {
        guard reader != nil else { return }
        if mosquitto_want_write(handle) { _ = mosquitto_loop_write(handle, 16) }
        let wants = mosquitto_want_write(handle)
        if wants, !writerResumed {
            writer?.resume()
            writerResumed = true
        } else if !wants, writerResumed {
            writer?.suspend()
            writerResumed = false
        }
    }
}
