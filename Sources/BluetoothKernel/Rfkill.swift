/// The kernel's radio kill switches for Bluetooth (`/sys/class/rfkill`).
public enum Rfkill {
    /// One Bluetooth switch that is on: `soft` set by software (rfkill,
    /// NetworkManager), `hard` by a physical switch or the firmware.
    public struct Block: Sendable, Equatable {
        public var name: String
        public var soft: Bool
        public var hard: Bool
    }

    /// The Bluetooth radios blocked now.
    public static func blocked(sysfs: String = "/sys") -> [Block] {
        let base = sysfs + "/class/rfkill"
        return KernelFile.names(in: base).compactMap { entry in
            let read = { (file: String) in KernelFile.line("\(base)/\(entry)/\(file)") ?? "" }
            guard read("type") == "bluetooth", read("soft") == "1" || read("hard") == "1" else { return nil }
            return Block(name: read("name"), soft: read("soft") == "1", hard: read("hard") == "1")
        }
    }

    /// Lifts every soft block on a Bluetooth radio, where the process may
    /// (root, or a udev rule giving it the `soft` files); returns how many it lifted.
    public static func unblockSoft(sysfs: String = "/sys") -> Int {
        let base = sysfs + "/class/rfkill"
        return KernelFile.names(in: base).filter { entry in
            KernelFile.line("\(base)/\(entry)/type") == "bluetooth" && KernelFile.line("\(base)/\(entry)/soft") == "1"
                && KernelFile.write("0", to: "\(base)/\(entry)/soft")
        }.count
    }
}
