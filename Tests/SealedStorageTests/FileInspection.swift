import Foundation
import XCTest
import SealedStorage
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the storage tests look at on disk, read with `lstat` so links are never followed.
enum FileInspection {
    /// The permission bits of `path`, including setuid, setgid and sticky.
    static func mode(of path: FilePath) throws -> UInt16 {
        let status = try lstatus(path)
        return UInt16(status.permissions.rawValue) & 0o7777
    }

    /// The contents of `path`.
    static func contents(of path: FilePath) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path.string)))
    }

    /// Writes `bytes` to `path` with Foundation, as another program would.
    static func write(_ bytes: [UInt8], to path: FilePath) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path.string))
    }

    /// The entries of `directory`, sorted.
    static func names(in directory: FilePath) -> [String] {
        DirectoryListing.names(in: directory)
    }

    /// Runs `body` with the process umask set to `mask`, then restores it. The umask is
    /// process-wide; XCTest runs these tests one at a time, so no other test sees it.
    static func withUmask<Result>(_ mask: UInt16, _ body: () throws -> Result) rethrows -> Result {
        let previous = umask(mode_t(mask))
        defer { umask(previous) }
        return try body()
    }

    private static func lstatus(_ path: FilePath) throws -> Stat {
        guard let status = try Syscall.statusIfPresent(path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path.string])
        }
        return status
    }
}

/// The ``StorageError`` `body` throws; fails the test if it succeeds or throws anything else.
func storageError<Result>(
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws -> Result
) throws -> StorageError {
    let result: Result
    do {
        result = try body()
    } catch let error as StorageError {
        return error
    }
    XCTFail("expected a StorageError, got \(result)", file: file, line: line)
    throw StorageErrorExpected()
}

/// Ends a test whose storage operation should have failed but did not.
struct StorageErrorExpected: Error {}
