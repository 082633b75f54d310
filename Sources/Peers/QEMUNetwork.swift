/// QEMU's user-mode network for a guest that may reach the host's loopback
/// and nothing else.
enum QEMUNetwork {
    /// A `-netdev` value (id `net`): each port on 10.0.2.100 in the guest
    /// is forwarded by socat to the same port on the host's 127.0.0.1;
    /// `restrict=on` routes nothing else.
    static func loopbackForwards(_ ports: [Int]) -> String {
        (["user", "id=net", "restrict=on"] + ports.map { "guestfwd=tcp:10.0.2.100:\($0)-cmd:socat - TCP:127.0.0.1:\($0)" })
            .joined(separator: ",")
    }
}
