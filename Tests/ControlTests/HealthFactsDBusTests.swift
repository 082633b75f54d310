import Control
import DBus
import Testing
import Vocabulary

/// `Health` as the control interface carries it, and as `waymark health`
/// reads it back, whatever a daemon of another version answers.
struct HealthFactsDBusTests {
    @Test func everyFactCrossesTheBusUnchanged() {
        var facts = HealthFacts()
        (facts.ready, facts.storeWritable, facts.storeProblem, facts.integrity) = (true, true, "", "ok")
        (facts.armed, facts.running, facts.missing, facts.authorized) = (true, false, [.location, .storage], true)
        (facts.silenceSeconds, facts.recoveryStep, facts.needsPowerCycle, facts.oldestQueuedSeconds) = (12.5, "discovery-restart", true, 3600)
        #expect(HealthFacts(dbus: facts.dbus) == facts)
        #expect(HealthFacts(dbus: HealthFacts().dbus) == HealthFacts())
    }

    @Test func aReplyMissingMembersOrOfOtherTypesReadsAsUnhealthy() {
        let reply = DBusValue.vardict(["Ready": .string("yes"), "StoreWritable": .uint32(1), "Running": .bool(true)])
        let facts = HealthFacts(dbus: reply)
        #expect(!facts.ready && !facts.storeWritable && !facts.armed && !facts.authorized)
        #expect(facts.running)
        #expect(facts.silenceSeconds == nil && facts.oldestQueuedSeconds == nil)
        #expect(HealthFacts(dbus: .string("not a dictionary")) == HealthFacts())
    }

    @Test func aRequirementThisVersionDoesNotKnowIsLeftOut() {
        let facts = HealthFacts(dbus: .vardict(["Missing": .array(element: "s", [.string("location"), .string("flux-capacitor")])]))
        #expect(facts.missing == [.location])
    }

    @Test(arguments: [Double.nan, -5, .infinity, -.infinity])
    func aDurationThatIsNoDurationReadsAsZero(_ seconds: Double) {
        let facts = HealthFacts(dbus: .vardict(["SilenceSeconds": .double(seconds), "OldestQueuedSeconds": .double(seconds)]))
        #expect(facts.silenceSeconds == 0 && facts.oldestQueuedSeconds == 0)
    }
}
