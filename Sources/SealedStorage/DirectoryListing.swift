import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in a directory (without "." and ".."), read with `opendir`/`readdir`.
package enum DirectoryListing {
    /// The entry names of `directory`, sorted; empty when it cannot be read.
    package static func names(in directory: FilePath) -> [String] {
        guard let stream = directory.withPlatformString({ opendir($0) }) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
