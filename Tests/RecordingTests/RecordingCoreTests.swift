import Recording
import Telemetry
import Testing
import Vocabulary

struct RecordingCoreTests {
    static let ready = RecordingConditions(intent: .armed, authorized: true, missing: [])

    static func core(gap: Double = 60) -> RecordingCore {
        RecordingCore(intent: .disarmed, lastCollected: nil, gapThreshold: gap,
                      trips: TripDetector.Options(startSightings: 2, startWindow: 10, lostTimeout: 5, reopenWindow: 10, maxDuration: 3600),
                      samples: SamplePolicy.Options(fixInterval: 1, beaconInterval: 1, sensorInterval: 60))
    }

    static func fix(mode: Int, time: Double? = nil) -> Fix {
        var fix = Fix()
        (fix.mode, fix.time, fix.lat, fix.lon) = (mode, time, 52.5, 13.4)
        return fix
    }

    static func committed(_ actions: [RecordingCore.Action]) -> [RecordedSample] {
        actions.flatMap { action -> [RecordedSample] in
            guard case .commit(let samples, _) = action else { return [] }
            return samples
        }
    }

    @Test func scanningStartsOnlyWhenArmedAuthorizedAndNothingIsMissing() {
        var core = Self.core()
        #expect(core.handle(.reconcile(.init(intent: .disarmed, authorized: true, missing: []), at: 1)).isEmpty)
        #expect(core.handle(.reconcile(.init(intent: .armed, authorized: false, missing: []), at: 2)).isEmpty)
        #expect(core.handle(.reconcile(.init(intent: .armed, authorized: true, missing: [.location]), at: 3)) == [.report(.requirementsMissing([.location]))])
        #expect(core.handle(.reconcile(Self.ready, at: 4)) == [.startScanning, .report(.requirementsMissing([]))])
        #expect(core.running)
    }

    @Test func aFullDiskStopsRecordingAsALostRequirementUntilAReloadFindsRoom() {
        var core = Self.core()
        _ = core.handle(.reconcile(Self.ready, at: 1))
        let full = core.handle(.storageFull(at: 10))
        #expect(full.contains(.stopScanning))
        #expect(full.contains(.report(.requirementsLostWhileRunning(lostAt: 10, missing: [.storage]))))
        #expect(core.handle(.storageFull(at: 11)).isEmpty, "reported once")
        #expect(core.handle(.reconcile(Self.ready, at: 12)).isEmpty, "still full until a reload")
        #expect(core.handle(.storageMayHaveRoom).isEmpty)
        #expect(core.handle(.reconcile(Self.ready, at: 13)).first == .startScanning)
    }

    @Test func nothingIsRecordedWhileStoppedAsleepOrFromAFixBelow2D() {
        var core = Self.core()
        #expect(core.handle(.observed(.vehicle(rssi: -60, at: 1))).isEmpty, "not running")
        _ = core.handle(.reconcile(Self.ready, at: 2))
        #expect(core.handle(.observed(.fix(Self.fix(mode: 1), at: 3))).isEmpty)
        _ = core.handle(.sleep(at: 4))
        #expect(core.handle(.observed(.vehicle(rssi: -60, at: 5))).isEmpty, "asleep")
        #expect(core.handle(.observed(.fix(Self.fix(mode: 3, time: 100), at: 5))).isEmpty, "asleep")
        #expect(core.lastFix == nil)
    }

    @Test func aFixDatesSamplesWithTheReceiversTimeBeforeItIsCommitted() {
        var core = Self.core()
        _ = core.handle(.reconcile(Self.ready, at: 1))
        let actions = core.handle(.observed(.fix(Self.fix(mode: 3, time: 1_800_000_000), at: 2)))
        #expect(actions.first == .receiverTime(1_800_000_000, atBoot: 2))
        #expect(core.lastFix?.mode == 3)
    }

    @Test func aTripStartsFromSightingsAndItsEndIsCommittedWithAFlush() {
        var core = Self.core()
        _ = core.handle(.reconcile(Self.ready, at: 0))
        #expect(Self.committed(core.handle(.observed(.vehicle(rssi: -60, at: 1)))).isEmpty)
        let started = Self.committed(core.handle(.observed(.vehicle(rssi: -60, at: 2))))
        #expect(started.map(\.kind) == [.event, .beacon])
        let trip = core.currentTrip
        #expect(trip != nil && started.allSatisfy { $0.tripID == trip })
        var flushed: Bool?
        var now = 2.0
        while let deadline = core.nextDeadline, flushed == nil {
            now = deadline + 0.001
            for case .commit(_, let flush) in core.handle(.tick(at: now)) { flushed = flush }
        }
        #expect(flushed == true)
        #expect(core.currentTrip == nil)
    }

    @Test func theHeartbeatIsPersistedAtMostEveryFiveSecondsAndWhenRecordingStops() {
        var core = Self.core()
        _ = core.handle(.reconcile(Self.ready, at: 0))
        func beats(_ actions: [RecordingCore.Action]) -> [Double] { actions.compactMap { if case .heartbeat(let at) = $0 { at } else { nil } } }
        #expect(beats(core.handle(.observed(.vehicle(rssi: nil, at: 1)))) == [1])
        #expect(beats(core.handle(.observed(.vehicle(rssi: nil, at: 3)))).isEmpty)
        #expect(beats(core.handle(.observed(.vehicle(rssi: nil, at: 6)))) == [6])
        #expect(beats(core.handle(.reconcile(.init(intent: .disarmed, authorized: true, missing: []), at: 7))) == [7])
    }

    @Test func aSleepLongerThanTheThresholdIsReportedAsAGapOnWaking() {
        var core = Self.core(gap: 60)
        _ = core.handle(.reconcile(Self.ready, at: 0))
        _ = core.handle(.observed(.vehicle(rssi: nil, at: 10)))
        _ = core.handle(.sleep(at: 11))
        #expect(core.handle(.wake(Self.ready, at: 500)) == [.report(.telemetryGapDetected(from: 10, to: 500))])
        #expect(!core.sleeping)
        #expect(core.handle(.wake(Self.ready, at: 501)).isEmpty, "a short one is not")
    }
}

extension RecordingCoreTests {
    /// The daemon's alarm may wake late, or a fix may come first: a deadline
    /// that passed before an observation is decided before it, at the time
    /// the alarm was set for, so live and replay agree on which side of a
    /// trip's end the observation falls.
    @Test func aDeadlinePassedBeforeAnObservationIsDecidedFirstWhateverTheAlarmsLateness() {
        func drive(tickOnTime: Bool) -> [RecordedSample] {
            var core = Self.core()
            var samples = Self.committed(core.handle(.reconcile(Self.ready, at: 0)))
            for at in [1.0, 2.0] { samples += Self.committed(core.handle(.observed(.vehicle(rssi: -60, at: at)))) }
            // Lost at 2 + 5; the reopen window runs out at 7 + 10.
            for deadline in [7.0, 17.0] where tickOnTime {
                samples += Self.committed(core.handle(.tick(at: deadline + RecordingCore.tickDelay)))
            }
            samples += Self.committed(core.handle(.observed(.fix(Self.fix(mode: 3, time: 100), at: 17.5))))
            #expect(core.currentTrip == nil && core.nextDeadline == nil)
            return samples
        }
        let onTime = drive(tickOnTime: true)
        #expect(onTime == drive(tickOnTime: false))
        #expect(onTime.map(\.kind) == [.event, .beacon, .event], "the trip's start, a beacon sample and the end; the fix came after it")
        #expect(onTime.last?.time == 2, "ended when the beacon was last seen")
    }
}
