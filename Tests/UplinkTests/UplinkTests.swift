import Config
import Foundation
import MQTT
import PeerHarness
import Session
import Store
import Telemetry
import Testing
import Uplink
import Upload
import Vocabulary

/// The uplink against glewlwyd and the ingest server, as the daemon builds
/// it at launch: from the config and the store a previous run left.
struct UplinkTests {
    struct Rig {
        let directory: TemporaryDirectory
        let provider: Glewlwyd
        let backend: IngestServer
        let configuration: Configuration
        let store: GatewayStore

        init() throws {
            directory = try TemporaryDirectory("waymark-uplink")
            provider = try Glewlwyd(directory: directory)
            backend = try IngestServer(directory: directory)
            let secret = directory.file("client-secret")
            try Glewlwyd.clientSecret.write(toFile: secret, atomically: true, encoding: .utf8)
            chmod(secret, 0o600)
            configuration = try Configuration.parse("""
                [Session]
                Issuer = \(provider.issuer)
                ClientId = \(Glewlwyd.clientID)
                ClientSecretFile = \(secret)

                [Backend]
                BaseURL = \(backend.baseURL)

                """, file: directory.file("waymark.conf"))
            store = try GatewayStore(path: directory.file("data/waymark.db"))
        }

        /// What a run that crashed left queued.
        func queue(_ count: Int) throws {
            _ = try Outbox(database: store.database).append((0..<count).map { index in
                var fix = Fix()
                (fix.mode, fix.lat, fix.lon) = (3, 48.2175, 8.4144)
                return Sample(time: 1_796_000_000 + Double(index), tripID: "trip-1", payload: .fix(fix))
            })
        }

        func uplink() throws -> Uplink {
            let uplink = UplinkTests.make(configuration, store: store)
            return try #require(uplink, "an uplink from \(configuration.session)")
        }

        /// Starts the uplink's service and runs it, as the daemon's group does.
        func start(_ uplink: Uplink) async -> Task<Void, Never> {
            let service = UplinkService(holder: UplinkHolder(uplink))
            await service.start()
            return Task { await service.run() }
        }

        /// Runs the uplink's service until `done` holds.
        func run(_ uplink: Uplink, until done: @escaping @Sendable () throws -> Bool) async throws {
            let running = await start(uplink)
            defer { running.cancel() }
            try await withDeadline(.seconds(20), "the uplink's work") {
                while try !done() { try await Task.sleep(for: .milliseconds(50)) }
            }
        }
    }

    @Test func whatACrashLeftQueuedGoesOutOnceTheStoredSessionIsAuthorized() async throws {
        let rig = try Rig()
        _ = try await SessionFactory.manager(rig.configuration, store: rig.store)
            .loginWithPassword(username: Glewlwyd.username, password: Glewlwyd.password)
        try rig.queue(25)

        let backend = rig.backend
        try await rig.run(try rig.uplink()) { try backend.summary().stored == 25 }
        #expect(try backend.summary().kinds == ["fix": 25])
        #expect(try Outbox(database: rig.store.database).status().depth == 0)
    }

    @Test func withoutASessionNothingIsSentAndNothingIsLost() async throws {
        let rig = try Rig()
        try rig.queue(10)
        let uplink = try rig.uplink()
        let running = await rig.start(uplink)
        // Never logged in: start neither logs in nor sends.
        #expect(await !uplink.session.isAuthorized)
        running.cancel()
        await running.value
        #expect(try rig.backend.summary().posts == 0)
        #expect(try Outbox(database: rig.store.database).status().depth == 10)
    }

    /// The uplink as the daemon builds it at launch.
    static func make(_ configuration: Configuration, store: GatewayStore) -> Uplink? {
        let state = GatewayState(armed: false, running: false, trip: nil, queueDepth: 0, scanMode: nil)
        return Uplink.make(configuration, store: store, deviceID: "gw-uplink", state: { state }, command: { _ in }, announce: { _ in }, sessionEvent: { _ in })
    }

    @Test func withoutAnIssuerThereIsNoUplink() throws {
        let directory = try TemporaryDirectory("waymark-uplink")
        let store = try GatewayStore(path: directory.file("data/waymark.db"))
        #expect(Self.make(Configuration(), store: store) == nil)
    }
}
