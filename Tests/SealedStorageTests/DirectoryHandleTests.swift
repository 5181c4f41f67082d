#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GroupVaultTestKit
import SealedStorage
import Foundation
import SystemPackage
import XCTest

/// A directory opened once by descriptor keeps addressing the directory it vetted: a swap of
/// the path for a symbolic link after the open is not followed, and every file read through
/// it is vetted itself.
final class DirectoryHandleTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }
    private var records: FilePath { root.appending("records") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "groupvault-dirhandle")
        XCTAssertEqual(mkdir(records.string, 0o700), 0)
        try FileInspection.write(Array("original".utf8), to: records.appending("state"))
        XCTAssertEqual(chmod(records.appending("state").string, 0o600), 0)
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// Moves `records` away and puts a symbolic link to a directory of planted files in its place.
    private func swapRecordsForALink() throws {
        XCTAssertEqual(rename(records.string, root.appending("records.vetted").string), 0)
        let planted = root.appending("planted")
        XCTAssertEqual(mkdir(planted.string, 0o700), 0)
        try FileInspection.write(Array("planted".utf8), to: planted.appending("state"))
        XCTAssertEqual(symlink(planted.string, records.string), 0)
    }

    /// The attack: a running process followed a directory swapped for a symbolic link after it
    /// had opened (and checked) it.
    func testDirectorySwappedForASymbolicLinkAfterOpenIsNotFollowedByReads() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try swapRecordsForALink()

        XCTAssertEqual(try handle.read("state", maximumSize: 100), Array("original".utf8))
    }

    func testDirectorySwappedForASymbolicLinkAfterOpenIsNotFollowedByWrites() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try swapRecordsForALink()

        try handle.replace("state", with: Array("new".utf8), durability: .full)

        XCTAssertEqual(try FileInspection.contents(of: root.appending("records.vetted/state")), Array("new".utf8))
        XCTAssertEqual(try FileInspection.contents(of: root.appending("planted/state")), Array("planted".utf8))
    }

    func testSymbolicLinkAtTheDirectoryPathIsRefused() throws {
        try swapRecordsForALink()
        XCTAssertThrowsError(try DirectoryHandle(opening: records, sharing: .ownerOnly)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .symbolicLink)
        }
    }

    func testDirectoryOpenToOtherUsersIsRefused() throws {
        XCTAssertEqual(chmod(records.string, 0o755), 0)
        XCTAssertThrowsError(try DirectoryHandle(opening: records, sharing: .ownerOnly)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .insecurePermissions(mode: 0o755))
        }
    }

    /// Every file read is vetted, not only the directory (before, only master.key was).
    func testFileReadableByOtherUsersIsRefused() throws {
        XCTAssertEqual(chmod(records.appending("state").string, 0o644), 0)
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        XCTAssertThrowsError(try handle.read("state", maximumSize: 100)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .insecurePermissions(mode: 0o644))
        }
    }

    func testSymbolicLinkInPlaceOfAFileIsRefused() throws {
        XCTAssertEqual(symlink("/etc/hostname", records.appending("linked").string), 0)
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        XCTAssertThrowsError(try handle.read("linked", maximumSize: 100)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .symbolicLink)
        }
    }

    func testMissingFileReadsAsNil() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        XCTAssertNil(try handle.read("absent", maximumSize: 100))
    }

    func testNameThatIsNotOnePathComponentIsRefused() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        for name in ["../records/state", "a/b", "state/", "/state", "..", ".", "", "state\u{0}", "\u{0}"] {
            XCTAssertThrowsError(try handle.read(name, maximumSize: 100), name.debugDescription)
            XCTAssertThrowsError(try handle.status(of: name), name.debugDescription)
        }
    }

    func testNamesWithDotsThatAreOneComponentAreAccepted() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        for name in ["...", ".state", "state.", "a..b", "é"] {
            XCTAssertNil(try handle.status(of: name), name)
        }
        XCTAssertNotNil(try handle.status(of: "state"))
    }

    func testListingAfterTheSwapListsTheDirectoryThatWasOpenedEveryTime() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try FileInspection.write(Array("second".utf8), to: records.appending("second"))
        try swapRecordsForALink()

        // Twice: each listing starts at the first entry, whatever an earlier one left behind.
        XCTAssertEqual(try handle.names(), ["second", "state"])
        XCTAssertEqual(try handle.names(), ["second", "state"])
    }

    func testConcurrentListingsOfOneHandleEachSeeEveryEntry() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        let expected = (["state"] + (0..<200).map { "file-\($0)" }).sorted()
        for name in expected where name != "state" {
            try FileInspection.write([1], to: records.appending(name))
        }

        let listings = Locked<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let names = (try? handle.names()) ?? []
            listings.withLock { $0.append(names) }
        }

        XCTAssertEqual(listings.withLock { $0 }, Array(repeating: expected, count: 8))
    }

    func testStatusAfterTheSwapIsOfTheFileInTheDirectoryThatWasOpened() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try swapRecordsForALink()

        XCTAssertEqual(try handle.status(of: "state")?.size, Int64("original".utf8.count))
        XCTAssertNil(try handle.status(of: "absent"))
    }

    func testLockFileIsCreatedInTheDirectoryThatWasOpened() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try swapRecordsForALink()

        try withExclusiveLock(in: handle, name: "state.lock") {}

        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appending("records.vetted/state.lock").string))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appending("planted/state.lock").string))
    }

    func testStaleTemporariesOfOneFileAreSweptAndNothingElse() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try FileInspection.write([1], to: records.appending(".state.tmp-0123456789abcdef"))
        try FileInspection.write([1], to: records.appending(".other.tmp-0123456789abcdef"))

        XCTAssertEqual(handle.removeStaleTemporaries(for: "state"), 1)
        XCTAssertEqual(try handle.names(), [".other.tmp-0123456789abcdef", "state"])
    }

    /// One listing of a directory finds every killed replace's temporary file by the name it
    /// would have replaced, with exactly the rule of a sweep: the record "a.gvr.tmp-x" has its
    /// own temporaries, which are not a's, and a name without the 16 hex digits is not one.
    func testTemporariesAmongAListingAreFoundByTheNameTheyWouldReplace() {
        let entries = [
            "a.gvr", ".a.gvr.tmp-0123456789abcdef", ".a.gvr.tmp-fedcba9876543210",
            "a.gvr.tmp-x.gvr", ".a.gvr.tmp-x.gvr.tmp-00112233445566aa",
            ".a.gvr.tmp-short", ".a.gvr.tmp-0123456789ABCDEF", "notes.txt", ".tmp-0123456789abcdef",
        ]

        let found = DirectoryHandle.temporaries(among: entries)

        XCTAssertEqual(found, [
            "a.gvr": [".a.gvr.tmp-0123456789abcdef", ".a.gvr.tmp-fedcba9876543210"],
            "a.gvr.tmp-x.gvr": [".a.gvr.tmp-x.gvr.tmp-00112233445566aa"],
        ])
    }

    // MARK: Subdirectories, by descriptor (issue 18)

    /// An empty directory of planted files, outside `records`, for links to point at.
    private func plantedDirectory() -> FilePath {
        let planted = root.appending("planted")
        XCTAssertEqual(mkdir(planted.string, 0o700), 0)
        return planted
    }

    private func entries(_ path: FilePath) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path.string).sorted()
    }

    func testASubdirectoryIsCreatedWithTheSharingModeExactlyWhateverTheUmask() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .unixGroup)
        let previous = umask(0o077)
        defer { umask(previous) }

        let created = try handle.subdirectory(creating: "shared")

        XCTAssertEqual(created.path, records.appending("shared"))
        XCTAssertEqual(try XCTUnwrap(try handle.status(of: "shared")).permissions.rawValue & 0o7777, 0o2770)
    }

    func testAFileIsCreatedWithTheSharingModeExactlyWhateverTheUmask() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .unixGroup)

        let file = try FileInspection.withUmask(0o077) { try handle.createFile("signal", .writeOnly) }
        Syscall.close(file)

        XCTAssertEqual(try FileInspection.mode(of: records.appending("signal")), 0o660)
    }

    func testAFileIsCreatedOnlyWhereNothingIsAlready() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)

        XCTAssertThrowsError(try handle.createFile("state", .writeOnly)) { error in
            XCTAssertEqual(error as? Errno, .fileExists)
        }
        XCTAssertEqual(try FileInspection.contents(of: records.appending("state")), Array("original".utf8))
    }

    func testAFileThatCouldNotBeGivenItsModeIsRemoved() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .unixGroup)

        XCTAssertThrowsError(try FaultInjection.withFault(.fail(.ioError), at: .call(.changeMode)) { try handle.createFile("signal", .writeOnly) }) { error in
            XCTAssertEqual(error as? Errno, .ioError)
        }
        XCTAssertEqual(FileInspection.names(in: records), ["state"])
    }

    func testASubdirectoryThatIsASymbolicLinkIsRefusedAndNothingIsCreatedInItsTarget() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        let planted = plantedDirectory()
        XCTAssertEqual(symlink(planted.string, records.appending("sub").string), 0)

        XCTAssertThrowsError(try handle.subdirectory(creating: "sub")) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .symbolicLink)
            XCTAssertTrue("\(error)".contains(self.records.appending("sub").string), "\(error)")
        }
        XCTAssertEqual(try entries(planted), [])
    }

    func testAChainIsCreatedBelowTheHeldDirectoryAfterItsPathWasSwappedForALink() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        try swapRecordsForALink()

        let leaf = try XCTUnwrap(try handle.chain(FilePath("Library/Caches"), creating: true))

        XCTAssertEqual(try entries(root.appending("records.vetted/Library")), ["Caches"])
        XCTAssertEqual(try entries(root.appending("planted")), ["state"], "nothing was created in the link's target")
        try leaf.replace("cached", with: [1], durability: .atomic)
        XCTAssertEqual(try entries(root.appending("records.vetted/Library/Caches")), ["cached"])
    }

    func testAChainRefusesASymbolicLinkAtAnyLevelBelowTheHeldDirectory() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        let planted = plantedDirectory()
        XCTAssertEqual(mkdir(records.appending("a").string, 0o700), 0)
        XCTAssertEqual(symlink(planted.string, records.appending("a/b").string), 0)

        XCTAssertThrowsError(try handle.chain(["a", "b", "c"], creating: true)) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .symbolicLink)
        }
        XCTAssertEqual(try entries(planted), [])
    }

    func testAnExistingSubdirectoryOpenToOthersIsRefusedAndNotRepaired() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        XCTAssertEqual(mkdir(records.appending("open").string, 0o700), 0)
        XCTAssertEqual(chmod(records.appending("open").string, 0o777), 0)

        XCTAssertThrowsError(try handle.subdirectory(creating: "open")) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .insecurePermissions(mode: 0o777))
        }
        XCTAssertEqual(try XCTUnwrap(try handle.status(of: "open")).permissions.rawValue & 0o777, 0o777)
    }

    func testAMissingSubdirectoryIsNilUnlessCreating() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)

        XCTAssertNil(try handle.subdirectory("absent", creating: false))
        XCTAssertNil(try handle.status(of: "absent"))
    }

    func testRemovingATreeRemovesALinkInItButNotTheLinksTarget() throws {
        let handle = try DirectoryHandle(opening: records, sharing: .ownerOnly)
        let planted = plantedDirectory()
        try FileInspection.write([1], to: planted.appending("kept"))
        let tree = try handle.subdirectory(creating: "tree")
        try tree.replace("file", with: [2], durability: .atomic)
        XCTAssertEqual(symlink(planted.string, records.appending("tree/link").string), 0)

        try handle.removeTree("tree")

        XCTAssertNil(try handle.status(of: "tree"))
        XCTAssertEqual(try entries(planted), ["kept"])
    }
}
