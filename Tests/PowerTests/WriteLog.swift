import Foundation

/// A log of every write a disk took, in device-mapper's `log-writes`
/// format, which QEMU's `blklogwrites` driver also writes: a super block
/// (magic, version, entry count, sector size), then each entry as a
/// header sector (sector, sector count, flags, data length) followed by
/// the sectors written. Replaying a prefix onto the disk's first image
/// gives the disk as a power cut right after that entry would leave it.
struct WriteLog {
    struct Entry {
        var sector: UInt64
        var sectors: UInt64
        var flags: UInt64
        /// Where the written sectors start in the log file.
        var offset: UInt64

        /// The disk's cache was flushed here: what came before is on it.
        var isFlush: Bool { flags & (WriteLog.flush | WriteLog.fua) != 0 }
        var isWrite: Bool { flags & (WriteLog.discard | WriteLog.mark) == 0 && sectors > 0 }
    }

    static let magic: UInt64 = 0x6a73_6677_7368_72
    static let flush: UInt64 = 1, fua: UInt64 = 2, discard: UInt64 = 4, mark: UInt64 = 8

    let path: String
    let sectorSize: UInt64
    let entries: [Entry]

    init(path: String) throws {
        self.path = path
        let log = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? log.close() }
        func words(at offset: UInt64) throws -> [UInt64] {
            try log.seek(toOffset: offset)
            let bytes = try log.read(upToCount: 32) ?? Data()
            guard bytes.count == 32 else { throw WriteLogError.truncated(offset: offset) }
            return (0..<4).map { index in bytes[(index * 8)..<(index * 8 + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        }
        let superBlock = try words(at: 0)
        guard superBlock[0] == Self.magic, superBlock[1] == 1 else { throw WriteLogError.notALog(path) }
        sectorSize = superBlock[3] & 0xffff_ffff
        guard [512, 1024, 2048, 4096].contains(sectorSize) else { throw WriteLogError.notALog(path) }
        var entries: [Entry] = []
        var offset = sectorSize
        for _ in 0..<superBlock[2] {
            let header = try words(at: offset)
            let entry = Entry(sector: header[0], sectors: header[1], flags: header[2], offset: offset + sectorSize)
            entries.append(entry)
            offset += sectorSize + (entry.isWrite ? entry.sectors * sectorSize : 0)
        }
        self.entries = entries
    }

    /// Writes entries `range` onto the image at `image`.
    func replay(_ range: Range<Int>, onto image: String) throws {
        let log = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let disk = try FileHandle(forUpdating: URL(fileURLWithPath: image))
        defer {
            try? log.close()
            try? disk.close()
        }
        for entry in entries[range] where entry.isWrite {
            try log.seek(toOffset: entry.offset)
            let data = try log.read(upToCount: Int(entry.sectors * sectorSize)) ?? Data()
            guard data.count == Int(entry.sectors * sectorSize) else { throw WriteLogError.truncated(offset: entry.offset) }
            try disk.seek(toOffset: entry.sector * sectorSize)
            try disk.write(contentsOf: data)
        }
    }
}
