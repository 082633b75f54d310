public import Basics
internal import Glibc
internal import Logging
internal import Synchronization

/// Writes what the gateway hears to capture files, from any thread.
///
/// Records are compressed as they come and flushed to the file at least
/// once a second of their own time (and at once for a state change), so a
/// power cut loses at most the last second. In a directory, a file that
/// reaches `maxBytes` is finished and a new one begun; the oldest files
/// beyond `keep` are deleted. A write that fails (a full disk) is logged
/// once and capture stops: it never gets in the way of recording.
public final class CaptureWriter: Sendable {
    public enum Target: Sendable, Equatable {
        /// Rotating files `capture-<UTC time>.wmcap` in a directory.
        case directory(String, maxBytes: Int64, keep: Int)
        /// One file, not rotated (`waymark record --out`).
        case file(String)
    }

    private struct State {
        var file: CaptureFile?
        var lastFlush = -Double.infinity
        var failed = false
    }

    public let target: Target
    private let header: @Sendable (_ wall: Double) -> CaptureHeader
    private let state: Mutex<State>

    /// Starts the first file now. `header` makes each file's header, given its start on the wall clock.
    public init(_ target: Target, at reading: ClockReading, header: @escaping @Sendable (_ wall: Double) -> CaptureHeader) throws(CaptureError) {
        self.target = target
        self.header = header
        if case .directory(let directory, _, _) = target { DurableFile.removeLeftovers(in: directory, prefix: "capture-") }
        let file = try Self.begin(target, wall: reading.wall, header: header(reading.wall))
        state = Mutex(State(file: file))
    }

    /// The file being written now.
    public var path: String? { state.withLock { $0.file?.path } }

    public func append(_ record: CaptureRecord) {
        state.withLock { state in
            guard !state.failed, let file = state.file else { return }
            do {
                try file.append(record)
                let isState = if case .state = record.body { true } else { false }
                guard isState || record.boot - state.lastFlush >= 1 || record.boot < state.lastFlush else { return }
                try file.flush()
                state.lastFlush = record.boot
                if case .directory(_, let maxBytes, _) = target, file.size >= maxBytes {
                    try rotate(&state, after: record)
                }
            } catch {
                state.failed = true
                Log.error("capture: \(error); capture stops, recording goes on")
            }
        }
    }

    /// Writes an `end` record and finishes the file.
    public func close(at reading: ClockReading) {
        state.withLock { state in
            guard let file = state.file else { return }
            state.file = nil
            guard !state.failed else { return }
            do {
                try file.append(Self.end(reading.boot, reading.wall, reading.synchronized))
                try file.finish()
            } catch {
                Log.error("capture: \(error)")
            }
        }
    }

    private func rotate(_ state: inout State, after record: CaptureRecord) throws(CaptureError) {
        guard let file = state.file, case .directory(let directory, _, let keep) = target else { return }
        try file.append(Self.end(record.boot, record.wall, record.synchronized))
        try file.finish()
        state.file = try Self.begin(target, wall: record.wall, header: header(record.wall))
        Log.info("capture: \(file.path) is full; continuing in \(state.file?.path ?? "")")
        let old = CaptureDirectory.files(in: directory).dropLast(max(1, keep))
        for path in old { unlink(path) }
    }

    private static func end(_ boot: Double, _ wall: Double, _ synchronized: Bool) -> CaptureRecord {
        CaptureRecord(boot: boot, wall: wall, synchronized: synchronized, body: .state(.end))
    }

    private static func begin(_ target: Target, wall: Double, header: CaptureHeader) throws(CaptureError) -> CaptureFile {
        switch target {
        case .file(let path):
            return try CaptureFile(path: path, header: header)
        case .directory(let directory, _, _):
            if mkdir(directory, 0o700) != 0, errno != EEXIST { throw CaptureFile.failure(directory, "create the directory") }
            let stamp = CivilTime.iso8601(wall).filter { $0 != "-" && $0 != ":" }.prefix(15) + "Z"
            var suffix = 0
            while true {
                let path = "\(directory)/capture-\(stamp)\(suffix == 0 ? "" : "-\(suffix)").wmcap"
                do {
                    return try CaptureFile(path: path, header: header)
                } catch .file(_, _, EEXIST, _) where suffix < 100 {
                    suffix += 1
                }
            }
        }
    }
}
