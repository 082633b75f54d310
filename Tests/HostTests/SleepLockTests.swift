import Host
import Testing

/// The sleep lock's decisions alone: every descriptor logind hands out is
/// held once or closed, whatever order requests and answers come in.
struct SleepLockTests {
    @Test func aTakeAsksLogindOnceAndHoldsWhatItGrants() {
        var lock = SleepLock()
        #expect(lock.handle(.take) == [.askLogind])
        #expect(lock.handle(.take) == [], "a second take while logind is asked asks nothing more")
        #expect(lock.handle(.granted(descriptor: 7)) == [])
        #expect(lock.holdsLock)
        #expect(lock.handle(.take) == [])
        #expect(lock.handle(.release) == [.close(descriptor: 7)])
        #expect(!lock.holdsLock)
    }

    @Test func aReleaseWhileLogindIsAskedClosesTheLockWhenItComes() {
        var lock = SleepLock()
        _ = lock.handle(.take)
        #expect(lock.handle(.release) == [])
        #expect(lock.handle(.granted(descriptor: 9)) == [.close(descriptor: 9)])
        #expect(lock.state == .released)
    }

    @Test func aTakeAfterAReleaseWhileAskedKeepsTheLockThatComes() {
        var lock = SleepLock()
        _ = lock.handle(.take)
        _ = lock.handle(.release)
        #expect(lock.handle(.take) == [], "logind is still being asked")
        #expect(lock.handle(.granted(descriptor: 4)) == [])
        #expect(lock.state == .held(descriptor: 4))
    }

    @Test func aLockGrantedAfterTheStopIsClosedAtOnce() {
        var lock = SleepLock()
        _ = lock.handle(.take)
        #expect(lock.handle(.stop) == [])
        #expect(lock.handle(.granted(descriptor: 5)) == [.close(descriptor: 5)])
        #expect(lock.handle(.take) == [], "stopped is for good")
        #expect(lock.state == .stopped)
    }

    @Test func stoppingClosesAHeldLockAndARefusalLeavesItReleased() {
        var lock = SleepLock()
        _ = lock.handle(.take)
        #expect(lock.handle(.refused) == [])
        #expect(lock.state == .released)
        #expect(lock.handle(.take) == [.askLogind], "a refused take can be tried again")
        _ = lock.handle(.granted(descriptor: 3))
        #expect(lock.handle(.stop) == [.close(descriptor: 3)])
        #expect(lock.handle(.granted(descriptor: 8)) == [.close(descriptor: 8)], "an answer nobody waits for is never kept")
    }
}
