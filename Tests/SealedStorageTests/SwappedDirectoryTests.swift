import Foundation
import GroupVaultTestKit
import SealedStorage
import SystemPackage
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The path-based helpers other modules call, attacked the way a group member would: the
/// directory a path goes through is renamed away and a symbolic link to another directory put in
/// its place, between two uses of the path (a check and a use, a creation and the next one, a
/// listing and a removal). Each helper opens the directory once (`O_DIRECTORY | O_NOFOLLOW`)
/// and does the rest relative to that descriptor, so it keeps working in the directory it
/// opened, or refuses, and never acts through the link.
///
/// The swaps happen at an exact call of the operation, through an action armed on the test's
/// ``FileLayerDriver``: no timing.
final class SwappedDirectoryTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }
    /// Where the attacker's symbolic link points: a directory the victim can write.
    private var elsewhere: FilePath { root.appending("elsewhere") }

    override func setUpWithError() throws {
        #if DEBUG
        directory = try TemporaryDirectory(prefix: "groupvault-swapped")
        try SafeDirectory.ensure(elsewhere, sharing: .ownerOnly)
        #else
        throw XCTSkip("the swaps are armed through FileLayerDriver, compiled out of release builds")
        #endif
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    // MARK: The attacker's move

    /// Renames `directory` to `<directory>-moved` and puts a symbolic link to `target` in its
    /// place: what a member who can write the parent does between two uses of the path.
    private static func swap(_ directory: FilePath, forLinkTo target: FilePath) {
        let moved = FilePath(directory.string + "-moved")
        let renamed = directory.withPlatformString { from in moved.withPlatformString { to in rename(from, to) } }
        let linked = target.withPlatformString { to in directory.withPlatformString { at in symlink(to, at) } }
        precondition(renamed == 0 && linked == 0, "the test could not swap \(directory): errno \(errno)")
    }

    private func moved(_ directory: FilePath) -> FilePath { FilePath(directory.string + "-moved") }

    /// Whether there is an entry at `path` (`try?` flattens "missing" and "failed" into `nil`).
    private func exists(_ path: FilePath) -> Bool { (try? Syscall.statusIfPresent(path)) != nil }

    // MARK: SafeDirectory.ensure

    /// `ensure(p/c)` with `p` swapped just before `c` is made: `c` is made in the `p` that was
    /// opened, not through the link (where a directory of the victim's, already there, would
    /// otherwise have been accepted as the new shared directory).
    func testEnsureMakesTheDirectoryInTheParentItOpenedNotThroughASwappedLink() throws {
        let parent = root.appending("p")
        try SafeDirectory.ensure(parent, sharing: .ownerOnly)
        let victims = elsewhere.appending("c")
        try SafeDirectory.ensure(victims, sharing: .ownerOnly)
        let elsewhere = self.elsewhere

        try FileLayerDriver.with { driver throws(StorageError) in
            driver.run(before: .call(.makeDirectory)) { Self.swap(parent, forLinkTo: elsewhere) }
            _ = try? SafeDirectory.ensure(parent.appending("c"), sharing: .unixGroup)
        }

        XCTAssertTrue(exists(moved(parent).appending("c")), "the directory is made in the parent that was opened")
        XCTAssertEqual(try FileInspection.mode(of: victims), 0o700, "the victim's directory is left as it was")
    }

    /// `ensure(a/b)` with `a` missing: `a` is made, then swapped for a link just before `b` is
    /// made. `b` lands in the `a` that was made and vetted, and nothing is made through the link.
    func testEnsureOfMissingParentsMakesEachInTheOneBeforeNotThroughASwappedLink() throws {
        let parent = root.appending("a")
        let elsewhere = self.elsewhere

        try FileLayerDriver.with { driver throws(StorageError) in
            // Making `a` takes two mkdirs (its private staging directory, then `a` inside it):
            // the swap comes before the third, the first of `b`'s.
            driver.run(before: .call(.makeDirectory), afterPassing: 2) { Self.swap(parent, forLinkTo: elsewhere) }
            _ = try? SafeDirectory.ensure(parent.appending("b"), sharing: .ownerOnly)
        }

        XCTAssertEqual(FileInspection.names(in: elsewhere), [], "nothing may be made through the link")
        XCTAssertTrue(exists(moved(parent).appending("b")))
    }

    // MARK: SafeDirectory.check

    /// The directory above a vetted one is swapped for a link to a tree with a look-alike
    /// (owned by the victim, mode right): a later check refuses rather than vet the look-alike.
    func testCheckRefusesADirectoryWhoseParentWasSwappedForALink() throws {
        let vault = root.appending("vault")
        try SafeDirectory.ensure(vault.appending("records"), sharing: .ownerOnly)
        try SafeDirectory.ensure(elsewhere.appending("records"), sharing: .ownerOnly)

        Self.swap(vault, forLinkTo: elsewhere)

        let error = try storageError { try SafeDirectory.check(vault.appending("records"), sharing: .ownerOnly) }
        XCTAssertEqual(error.kind, .symbolicLink, error.description)
    }

    // MARK: SafeFile

    /// A reader checks the directory, then reads a file in it; the directory is swapped for a
    /// link in between. The planted file is not read.
    func testReadIfPresentRefusesAFileWhoseDirectoryWasSwappedForALink() throws {
        let records = root.appending("records")
        try SafeDirectory.ensure(records, sharing: .ownerOnly)
        try FileInspection.write(Array("genuine".utf8), to: records.appending("file"))
        try FileInspection.write(Array("planted".utf8), to: elsewhere.appending("file"))
        try SafeDirectory.check(records, sharing: .ownerOnly)

        Self.swap(records, forLinkTo: elsewhere)

        let error = try storageError { try SafeFile.readIfPresent(records.appending("file"), maximumSize: 100) }
        XCTAssertEqual(error.kind, .symbolicLink, error.description)
    }

    /// The ownership check of a file goes through its directory without following a link
    /// swapped in for it: it refuses rather than vet the planted file.
    func testCheckOwnershipRefusesAFileWhoseDirectoryWasSwappedForALink() throws {
        let records = root.appending("records")
        try SafeDirectory.ensure(records, sharing: .ownerOnly)
        try FileInspection.write(Array("planted".utf8), to: elsewhere.appending("file"))
        chmod(elsewhere.appending("file").string, 0o600)

        Self.swap(records, forLinkTo: elsewhere)

        let error = try storageError { try SafeFile.checkOwnership(records.appending("file"), sharing: .ownerOnly) }
        XCTAssertEqual(error.kind, .symbolicLink, error.description)
    }

    // MARK: AtomicFile

    /// The directory is swapped just before the rename, and a file named as the temporary is
    /// planted behind the link (the attacker can list the real directory to learn the name).
    /// The rename stays in the directory that was opened: the new content is published there,
    /// and the planted file is not published in its stead.
    func testReplaceRenamesInTheDirectoryItOpenedNotThroughASwappedLink() throws {
        let records = root.appending("records")
        try SafeDirectory.ensure(records, sharing: .ownerOnly)
        let target = records.appending("state")
        try AtomicFile.replace(target, with: Array("old".utf8), sharing: .ownerOnly, durability: .full)
        let elsewhere = self.elsewhere

        try FileLayerDriver.with { driver throws(StorageError) in
            driver.run(before: .call(.rename)) {
                let temporary = DirectoryListing.names(in: records).first { $0.hasPrefix(".state.tmp-") } ?? ".state.tmp-unknown"
                Self.swap(records, forLinkTo: elsewhere)
                try? FileInspection.write(Array("planted".utf8), to: elsewhere.appending(temporary))
            }
            try AtomicFile.replace(target, with: Array("new".utf8), sharing: .ownerOnly, durability: .full)
        }

        XCTAssertEqual(try FileInspection.contents(of: moved(records).appending("state")), Array("new".utf8))
        XCTAssertFalse(FileInspection.names(in: elsewhere).contains("state"), "the planted file must not be published")
    }

    /// Stale temporaries are listed, then the directory is swapped before they are removed: the
    /// ones listed are removed from the directory listed, and the same names behind the link
    /// (a victim's files) are left alone.
    func testRemoveStaleTemporariesRemovesFromTheDirectoryItListedNotThroughASwappedLink() throws {
        let records = root.appending("records")
        try SafeDirectory.ensure(records, sharing: .ownerOnly)
        let target = records.appending("state")
        let stale = AtomicFile.temporaryPrefix(for: target) + String(repeating: "a", count: AtomicFile.suffixLength)
        try FileInspection.write([1], to: records.appending(stale))
        try FileInspection.write([2], to: elsewhere.appending(stale))
        let elsewhere = self.elsewhere

        let removed = FileLayerDriver.with { driver in
            driver.run(before: .call(.unlink)) { Self.swap(records, forLinkTo: elsewhere) }
            return AtomicFile.removeStaleTemporaries(for: target)
        }

        XCTAssertEqual(removed, 1)
        XCTAssertEqual(FileInspection.names(in: moved(records)), [], "the listed temporary is removed")
        XCTAssertEqual(FileInspection.names(in: elsewhere), [stale], "the file behind the link is left alone")
    }

    func testSyncDirectoryDoesNotFollowASymbolicLink() throws {
        let link = root.appending("link")
        XCTAssertEqual(elsewhere.withPlatformString { to in link.withPlatformString { symlink(to, $0) } }, 0)

        let error = try storageError { try AtomicFile.syncDirectory(link) }

        // O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR on Linux, ELOOP elsewhere.
        XCTAssertTrue([.notDurable(.notDirectory), .notDurable(.tooManySymbolicLinkLevels)].contains(error.kind), error.description)
    }

    // MARK: DirectoryListing

    /// A listing by path opens the directory with `O_NOFOLLOW` (not `opendir`, which follows):
    /// a directory swapped for a link is refused, not listed through.
    func testListingRefusesADirectorySwappedForALink() throws {
        let records = root.appending("records")
        try SafeDirectory.ensure(records, sharing: .ownerOnly)
        try FileInspection.write([1], to: elsewhere.appending("planted"))

        Self.swap(records, forLinkTo: elsewhere)

        let error = try storageError { try DirectoryListing.entries(in: records) }
        XCTAssertTrue([.system(.notDirectory), .system(.tooManySymbolicLinkLevels)].contains(error.kind), error.description)
    }

    // MARK: FileLock

    /// The lock directory is vetted, then swapped for a link to a directory of the victim's:
    /// no lock file is created (with the group's mode) behind the link.
    func testLockAtAPathRefusesADirectorySwappedForALink() throws {
        let locks = root.appending("locks")
        try SafeDirectory.ensure(locks, sharing: .ownerOnly)

        Self.swap(locks, forLinkTo: elsewhere)

        let error = try storageError { _ = try FileLock(exclusiveAt: locks.appending("group.lock"), sharing: .unixGroup) }
        XCTAssertEqual(error.kind, .symbolicLink, error.description)
        XCTAssertEqual(FileInspection.names(in: elsewhere), [], "no lock file may be made behind the link")
    }
}
