import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest

/// ``DirectoryChanges``: a look at a watched directory counts a change for whatever another
/// check of it could find different (an entry created, removed, renamed, written, re-moded; the
/// directory re-moded or moved), and nothing else; what it cannot vouch for counts at every look.
final class DirectoryChangesTests: XCTestCase {
    private var temporary: TemporaryDirectory!
    private var handle: DirectoryHandle!
    private var registration: DirectoryChanges.Registration!
    private var changes: DirectoryChanges!

    override func setUpWithError() throws {
        temporary = try TemporaryDirectory(prefix: "changes")
        try Data("old".utf8).write(to: temporary.url.appendingPathComponent("state"))
        handle = try DirectoryHandle(opening: FilePath(temporary.path), sharing: .ownerOnly)
        changes = try XCTUnwrap(DirectoryChanges.shared, "inotify is available on Linux")
        registration = try XCTUnwrap(changes.register(handle))
    }

    override func tearDown() {
        registration = nil
        handle = nil
        temporary.remove()
    }

    private func file(_ name: String) -> URL { temporary.url.appendingPathComponent(name) }

    /// Creates or extends `name` of `directory` itself, as SQLite writes its files (`Data.write`
    /// goes through a temporary file of another name).
    private func append(_ text: String, to name: String, in directory: TemporaryDirectory) {
        let descriptor = open(directory.url.appendingPathComponent(name).path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(text.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count - 1) }, text.utf8.count)
        close(descriptor)
    }

    /// Whether `change` made the next look count anything, looking once before it.
    private func counts(_ change: () throws -> Void) rethrows -> Bool {
        let before = changes.changes(of: [registration])
        try change()
        return changes.changes(of: [registration]) != before
    }

    func testAChangeBeforeAMarkIsCountedWithoutReadingTheQueueWhenALookCameAfterIt() throws {
        let other = try TemporaryDirectory(prefix: "changes-other")
        defer { other.remove() }
        let otherRegistration = try XCTUnwrap(changes.register(try DirectoryHandle(opening: FilePath(other.path), sharing: .ownerOnly)))
        let before = changes.changes(of: [registration])
        append("new", to: "state", in: temporary)
        let mark = changes.looks
        // Another caller's look, after the mark, reads the queue for every watch.
        _ = changes.changes(of: [otherRegistration])
        let (count, calls) = FileLayerDriver.with { driver in
            (changes.changes(of: [registration], lookedSince: mark), driver.trace.map(\.call))
        }
        XCTAssertNotEqual(count, before)
        XCTAssertFalse(calls.contains(.inotifyRead), "\(calls)")
    }

    func testWithNoLookSinceTheMarkTheQueueIsRead() {
        let before = changes.changes(of: [registration])
        let mark = changes.looks
        append("new", to: "state", in: temporary)
        XCTAssertNotEqual(changes.changes(of: [registration], lookedSince: mark), before)
    }

    func testACountWithoutReadingTheQueueIsNoLook() {
        let mark = changes.looks
        _ = changes.changes(of: [registration], lookedSince: mark &- 1)
        XCTAssertEqual(changes.looks, mark, "a count that read nothing must not vouch for a later mark")
    }

    func testLooksCountNothingWhileNothingHappens() {
        let first = changes.changes(of: [registration])
        XCTAssertEqual(changes.changes(of: [registration]), first)
        XCTAssertEqual(changes.changes(of: [registration]), first)
    }

    func testReadingAnEntryCountsNothing() throws {
        XCTAssertFalse(try counts { _ = try Data(contentsOf: file("state")) })
    }

    func testAnEntryCreatedCounts() throws {
        XCTAssertTrue(try counts { try Data("new".utf8).write(to: file("created")) })
    }

    func testAnEntryRemovedCounts() throws {
        XCTAssertTrue(try counts { try FileManager.default.removeItem(at: file("state")) })
    }

    func testAnEntryReplacedByARenameCounts() throws {
        try Data("new".utf8).write(to: file("incoming"))
        XCTAssertTrue(counts { _ = rename(file("incoming").path, file("state").path) })
    }

    func testAnEntryWrittenInPlaceCounts() throws {
        XCTAssertTrue(try counts {
            let handle = try FileHandle(forWritingTo: file("state"))
            try handle.write(contentsOf: Data("x".utf8))
            try handle.close()
        })
    }

    func testAnEntryReModedCounts() throws {
        XCTAssertTrue(try counts { try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file("state").path) })
    }

    func testTheDirectoryReModedCounts() throws {
        XCTAssertTrue(try counts { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temporary.path) })
    }

    func testTheDirectoryMovedCounts() throws {
        let moved = temporary.url.deletingLastPathComponent().appendingPathComponent(temporary.url.lastPathComponent + "-moved")
        defer { try? FileManager.default.moveItem(at: moved, to: temporary.url) }
        XCTAssertTrue(try counts { try FileManager.default.moveItem(at: temporary.url, to: moved) })
    }

    func testADirectoryWhoseWatchTheKernelDroppedCountsAtEveryLook() throws {
        let removed = try TemporaryDirectory(prefix: "changes-removed")
        var held: DirectoryHandle? = try DirectoryHandle(opening: FilePath(removed.path), sharing: .ownerOnly)
        let watched = try XCTUnwrap(changes.register(held!))
        // The kernel drops the watch once the directory is gone and nothing holds it open.
        held = nil
        removed.remove()
        let first = changes.changes(of: [watched])
        XCTAssertNotEqual(changes.changes(of: [watched]), first)
        XCTAssertNotEqual(changes.changes(of: [watched]), changes.changes(of: [watched]))
    }

    func testAQueueOverflowCountsForEveryWatch() throws {
        let other = try TemporaryDirectory(prefix: "changes-other")
        defer { other.remove() }
        let otherRegistration = try XCTUnwrap(changes.register(try DirectoryHandle(opening: FilePath(other.path), sharing: .ownerOnly)))
        let before = changes.changes(of: [otherRegistration])
        // More events than the kernel queues (fs.inotify.max_queued_events), on the first
        // directory only; two names in turn, since the kernel merges an event with an identical
        // one queued just before it.
        let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
        for index in 0...(limit / 2 + 1) {
            for name in ["a", "b"] {
                XCTAssertEqual(chmod(file("state").path, index % 2 == 0 ? 0o600 : 0o640), 0)
                XCTAssertEqual(chmod(temporary.path, name == "a" ? 0o700 : 0o750), 0)
            }
        }
        XCTAssertNotEqual(changes.changes(of: [otherRegistration]), before, "the overflow cannot be pinned on one watch")
    }

    func testOneDirectoryRegisteredTwiceIsCountedForBoth() throws {
        let second = try XCTUnwrap(changes.register(handle))
        let before = (changes.changes(of: [registration]), changes.changes(of: [second]))
        try Data("new".utf8).write(to: file("created"))
        XCTAssertNotEqual(changes.changes(of: [registration]), before.0)
        XCTAssertNotEqual(changes.changes(of: [second]), before.1)
    }

    func testReleasingOneOfTwoRegistrationsOfADirectoryKeepsTheOtherWatching() throws {
        var second: DirectoryChanges.Registration? = try XCTUnwrap(changes.register(handle))
        XCTAssertNotNil(second)
        second = nil
        XCTAssertTrue(try counts { try Data("new".utf8).write(to: file("created")) })
        XCTAssertFalse(counts {})
    }

    /// A directory of its own, watched ignoring `ignored`: the setUp's watch of the shared one
    /// ignores nothing, and one directory's watches ignore only what all of them ignore.
    private func ignoringWatch(_ ignored: Set<String>) throws -> (directory: TemporaryDirectory, handle: DirectoryHandle, registration: DirectoryChanges.Registration) {
        let directory = try TemporaryDirectory(prefix: "changes-ignoring")
        let handle = try DirectoryHandle(opening: FilePath(directory.path), sharing: .ownerOnly)
        return (directory, handle, try XCTUnwrap(changes.register(handle, ignoringEntriesNamed: ignored)))
    }

    func testWritesOfAnIgnoredEntryCountNothing() throws {
        let watched = try ignoringWatch(["database", "database-wal"])
        defer { watched.directory.remove() }
        let before = changes.changes(of: [watched.registration])
        append("rows", to: "database-wal", in: watched.directory)
        append("rows", to: "database", in: watched.directory)
        append("more", to: "database-wal", in: watched.directory)
        XCTAssertEqual(changes.changes(of: [watched.registration]), before)
    }

    func testOtherEntriesOfAWatchThatIgnoresSomeStillCount() throws {
        let watched = try ignoringWatch(["database"])
        defer { watched.directory.remove() }
        let before = changes.changes(of: [watched.registration])
        append("locked", to: "device-lock-state", in: watched.directory)
        XCTAssertNotEqual(changes.changes(of: [watched.registration]), before)
    }

    func testTheDirectoryItselfCountsForAWatchThatIgnoresEntries() throws {
        let watched = try ignoringWatch(["database"])
        defer { watched.directory.remove() }
        let before = changes.changes(of: [watched.registration])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: watched.directory.path)
        XCTAssertNotEqual(changes.changes(of: [watched.registration]), before)
    }

    func testADirectoryAlsoWatchedIgnoringNothingCountsEveryEntry() throws {
        let ignoring = try XCTUnwrap(changes.register(handle, ignoringEntriesNamed: ["database"]))
        let before = changes.changes(of: [ignoring])
        append("rows", to: "database", in: temporary)
        XCTAssertNotEqual(changes.changes(of: [ignoring]), before, "the setUp's watch of the same directory ignores nothing")
    }
}
