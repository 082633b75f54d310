import Basics
package import Command
import Config
import Logging
package import MQTT
import Store

/// `waymark mqtt test`: connects with the configured settings, reads the
/// retained availability, publishes it back and reads it again. Each
/// problem (TLS, authentication, the ACL) is one line with its fix.
package enum MQTTCommand {
    package static let specs = [
        CommandSpec(name: "mqtt", summary: "`mqtt test`: connect to the configured broker, publish availability and read it back.",
                    details: "Connects with the configured settings under its own client id (to each broker listed, in turn), reads the retained availability, publishes it back and reads it again. Prints one line per step; a TLS, authentication or ACL problem is one line with its fix, exit 69.",
                    arguments: "test", run: run),
    ]

    static func run(_ invocation: Invocation) async -> ExitCode {
        guard let configuration = Configuration.load(for: invocation) else { return .config }
        guard invocation.arguments == ["test"] else {
            Log.error("mqtt: expected `waymark mqtt test`")
            return .usage
        }
        var deviceID: String
        switch StoreAccess.open(invocation, for: "mqtt test", create: false) {
        case .store(let store): deviceID = (try? store.deviceID) ?? ""
        case .absent: deviceID = ""
        case .failed(let code): return code
        }
        // The gateway's topics name its device id, which its store holds from the first start on.
        let unnamed = deviceID.isEmpty
        if unnamed { deviceID = "no-device-id-yet" }
        let settings: MQTTSettings
        do {
            guard let configured = try configuration.mqttSettings(deviceID: deviceID) else {
                Log.error("mqtt test: [MQTT] Broker is empty; set it to mqtts://HOST:PORT")
                return .config
            }
            settings = configured
        } catch {
            Log.error("mqtt test: \(error)")
            return .config
        }
        switch await check(settings, topic: configuration.mqttTopicPrefix(deviceID: deviceID) + "/availability") {
        case .success(let lines):
            lines.forEach { print($0) }
            if unnamed {
                print("this gateway has no device id yet (its store is made at its first start or login), so it tested under "
                      + configuration.mqttTopicPrefix(deviceID: deviceID) + " instead of its own topics")
            }
            return .ok
        case .failure(let problem):
            print(problem.description)
            return .unavailable
        }
    }

    package struct Problem: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// Connect, read the retained availability, publish it back, read it
    /// again: on each broker listed (each node of a cluster), in turn.
    package static func check(_ settings: MQTTSettings, topic: String) async -> Result<[String], Problem> {
        var lines: [String] = []
        for broker in settings.brokers {
            switch await check(settings, on: broker, topic: topic) {
            case .success(let more): lines += more
            case .failure(let problem):
                guard settings.brokers.count > 1 else { return .failure(problem) }
                return .failure(Problem(description: (lines + ["\(broker): \(problem.description)"]).joined(separator: "\n")))
            }
        }
        return .success(lines)
    }

    private static func check(_ settings: MQTTSettings, on broker: BrokerAddress, topic: String) async -> Result<[String], Problem> {
        var settings = settings
        settings.brokers = [broker]
        // Not the daemon's own session: a test must not take it over.
        settings.clientID += "-test"
        let client: MQTTClient
        do { client = try MQTTClient(settings) } catch { return .failure(Problem(description: error.description)) }
        defer { client.disconnect(sendingWill: false) }
        // The client's events, and nil once 10 s have passed.
        let (merged, feed) = AsyncStream.makeStream(of: MQTTClient.Event?.self)
        let source = client.events
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { for await event in source { feed.yield(event) } }
            group.addTask { if await ContinuousClock().pause(for: .seconds(10)) { feed.yield(nil) } }
            defer { group.cancelAll() }
            var events = merged.makeAsyncIterator()
            func next() async -> MQTTClient.Event? { (await events.next()) ?? nil }
            client.connect()
            switch await next() {
            case .connected: break
            case .connectFailed(let error), .disconnected(let error?): return .failure(Problem(description: "\(error)"))
            default: return .failure(Problem(description: "MQTT: no answer from \(broker) in 10 s; check [MQTT] Broker and the firewall"))
            }
            var lines = ["connected to \(broker) with \(client.version.name)\(settings.tls ? " over TLS, certificate verified" : "")"]
            do { try client.subscribe(topic) } catch { return .failure(Problem(description: "\(error)")) }
            // A retained value arrives at once if there is one; otherwise "offline".
            // (The SUBACK is not an event; a short wait for the retained message.)
            var value = "offline"
            group.addTask { if await ContinuousClock().pause(for: .seconds(2)) { feed.yield(.message(topic: "", payload: [])) } }
            while let event = await next() {
                guard case .message(let from, let payload) = event else { continue }
                if from == topic { value = String(decoding: payload, as: UTF8.self) }
                break
            }
            let mid: Int32
            do { mid = try client.publish(topic, Array(value.utf8), retain: true) } catch { return .failure(Problem(description: "\(error)")) }
            var acknowledged = false, readBack = false
            while !(acknowledged && readBack), let event = await next() {
                switch event {
                case .published(mid, let reason) where reason >= 0x80:
                    return .failure(Problem(description: MQTTError.refusal(on: topic, reasonCode: reason).description))
                case .published(mid, _): acknowledged = true
                case .message(topic, let payload) where String(decoding: payload, as: UTF8.self) == value: readBack = true
                case .disconnected(let error): return .failure(Problem(description: error?.description ?? "MQTT: the broker closed the connection"))
                default: break
                }
            }
            guard acknowledged else { return .failure(Problem(description: "MQTT: no PUBACK for \(topic) in 10 s; see the broker's log")) }
            guard readBack else {
                return .failure(Problem(description: "MQTT: published \(topic) but could not read it back; the broker's ACL may not let this user read it"))
            }
            lines.append("published \(topic) (\(value)) and read it back")
            return .success(lines)
        }
    }
}
