import Foundation

/// A member of the group who swaps a directory a process holds for a symbolic link to a
/// directory of their own, plants files there, and looks at what landed there: the moves of the
/// swap tests (a running process must keep using the directory it vetted, and a new one must
/// refuse the link).
public struct LinkSwappingAttacker {
    /// The attacker's own directory, which every link points to.
    public let directory: URL

    /// Makes the attacker's directory (`elsewhere`, with `mode`) in `parent`.
    public init(in parent: URL, mode: Int = 0o700) throws {
        directory = parent.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: mode])
    }

    /// Moves `path` aside (the same directory, by another name) and puts a symbolic link to the
    /// attacker's directory in its place; returns where it went.
    @discardableResult
    public func swapForLink(_ path: String) throws -> URL {
        let original = URL(fileURLWithPath: path)
        let movedAside = original.deletingLastPathComponent().appendingPathComponent(original.lastPathComponent + ".moved")
        try FileManager.default.moveItem(at: original, to: movedAside)
        try FileManager.default.createSymbolicLink(at: original, withDestinationURL: directory)
        return movedAside
    }

    /// Writes `bytes` as `name` in the attacker's directory, a file of this user with `mode`
    /// (one the victim's checks accept, so only where it is matters).
    public func plant(_ bytes: [UInt8], as name: String, mode: Int = 0o600) throws {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// The names in the attacker's directory, sorted.
    public func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }
}
