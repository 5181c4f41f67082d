import Foundation
import Keyring

/// A fresh directory under the system temporary directory (or another parent), removed by
/// ``remove()``.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty, owner-only directory in `parent` whose name starts with `prefix`.
    public init(prefix: String = "groupvault-test", in parent: URL = FileManager.default.temporaryDirectory) throws {
        url = parent.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// `url.path`.
    public var path: String { url.path }

    /// Deletes the directory and everything in it, after closing what this process's keyring
    /// homes hold (their directories, their databases' connections): XCTest keeps each test case
    /// object, and the homes in its properties, for the whole run, and their descriptors would
    /// pile up (thousands, past where Foundation's `Process` overruns its scan of
    /// `/proc/self/fd`, which AddressSanitizer reports). Whatever is used again is reopened.
    public func remove() {
        HomeDirectories.releaseAll()
        KeyringDatabase.closeAll()
        try? FileManager.default.removeItem(at: url)
    }
}
