internal import Glibc

/// The capture files in a directory, oldest first.
public enum CaptureDirectory {
    public static func files(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var files: [(path: String, modified: Int)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("capture-"), name.hasSuffix(".wmcap") else { continue }
            let path = "\(directory)/\(name)"
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            files.append((path, info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec))
        }
        return files.sorted { ($0.modified, $0.path) < ($1.modified, $1.path) }.map(\.path)
    }
}
