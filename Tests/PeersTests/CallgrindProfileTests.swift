import PeerHarness
import Testing

struct CallgrindProfileTests {
    /// The shape callgrind writes: an object or function is named once, on
    /// whichever line mentions it first (often a callee's `cob=`/`cfn=`),
    /// and referred to by number after that.
    @Test func functionsAreFoundByNameOrNumberWhereverTheirObjectWasFirstNamed() {
        let profile = """
            version: 1
            cmd:  /opt/waymark run
            ob=(1) /usr/lib/libc.so.6
            fn=(1) malloc
            cob=(2) /opt/waymark
            cfn=(2) $s7Daemon5startyyF
            calls=1 0
            0 5
            ob=(2)
            fn=(2)
            0 3
            fn=(3) $s4DBus4readyyF'2
            0 1
            fn=(4) 0x00000000000036e0
            0 1
            ob=(1)
            fn=(5) free
            0 2
            ob=(2)
            fn=(1)
            0 1
            """
        #expect(CallgrindProfile.functions(in: profile, object: "/opt/waymark") == ["$s7Daemon5startyyF", "$s4DBus4readyyF", "malloc"])
        #expect(CallgrindProfile.functions(in: profile, object: "/usr/lib/libc.so.6") == ["malloc", "free"])
    }
}
