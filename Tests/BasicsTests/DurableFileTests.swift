import Basics
import Foundation
import Testing

/// What a power cut may find of a file `DurableFile` writes: the old one or
/// the new one. The cut itself is the virtual machine's power-cut test
/// (`make test-power`); here, every way a write can end.
struct DurableFileTests {
    private let directory = NSTemporaryDirectory() + "durable-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    private func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory).sorted() }
    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    private func mode(_ path: String) throws -> Int { try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }

    @Test func aReplacedFileHasTheNewBytesItsModeAndNoTemporaryBeside() throws {
        let path = directory + "/report.html"
        try DurableFile.write(Array("old".utf8), to: path, mode: 0o644, replace: false)
        try DurableFile.write(Array("new".utf8), to: path, mode: 0o600, replace: true)
        #expect(try text(path) == "new")
        #expect(try mode(path) == 0o600)
        #expect(try names() == ["report.html"])
    }

    @Test func withoutReplaceAnExistingFileIsKeptAndSaidSo() throws {
        let path = directory + "/track.geojson"
        try DurableFile.write(Array("first".utf8), to: path, replace: false)
        #expect(throws: DurableFileError.exists(path: path)) { try DurableFile.write(Array("second".utf8), to: path, replace: false) }
        #expect(try text(path) == "first")
        #expect(try names() == ["track.geojson"])
    }

    @Test func aTemporaryLeftByACutIsNotMistakenForTheFileAndIsCleared() throws {
        let path = directory + "/capture-1.wmcap"
        // A cut between the temporary's creation and its rename.
        try "half".write(toFile: path + ".new", atomically: false, encoding: .utf8)
        #expect(!FileManager.default.fileExists(atPath: path))
        let fd = try DurableFile.begin(path, head: Array("head".utf8))
        close(fd)
        #expect(try text(path) == "head")
        try "half".write(toFile: directory + "/capture-0.wmcap.new", atomically: false, encoding: .utf8)
        try "other".write(toFile: directory + "/other.new", atomically: false, encoding: .utf8)
        DurableFile.removeLeftovers(in: directory, prefix: "capture-")
        #expect(try names() == ["capture-1.wmcap", "other.new"])
    }

    /// Replacing is for regular files only: a link, followed or replaced,
    /// would write where the user did not name (`--out /dev/stdout --force`).
    @Test func aSymbolicLinkAtThePathIsNeitherFollowedNorReplaced() throws {
        let target = directory + "/target", path = directory + "/out"
        try "target".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(throws: DurableFileError.notRegular(path: path, kind: "a symbolic link")) {
            try DurableFile.write(Array("mine".utf8), to: path, replace: true)
        }
        #expect(try text(target) == "target")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target)
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    }

    @Test func aFileInAMissingDirectoryIsAnErrorNamingItAndLeavesNothing() throws {
        let path = directory + "/missing/file"
        #expect {
            try DurableFile.write([1, 2, 3], to: path, replace: true)
        } throws: { error in
            "\(error)".hasPrefix(path + ".new: cannot create it: No such file or directory")
        }
        #expect(try names().isEmpty)
    }
}
