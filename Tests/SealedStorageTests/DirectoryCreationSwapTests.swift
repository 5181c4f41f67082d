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

/// Making a directory in a directory other members of the group can write
/// (`DirectoryHandle.subdirectory(creating:)`, `SafeDirectory.ensure`), attacked by a member
/// who renames entries there: right after this process's `mkdirat`, and before it opens what it
/// made to give it the sharing mode, the member renames *another* private directory of the
/// victim's (in the same parent: the channel server's `.<name>.bind-<random>`, 0700) to the name
/// just made. A directory can be renamed within its parent with no permission on the directory
/// itself, so every private directory of the victim's in a shared one is within reach. The
/// renamed-in directory must keep its mode: only a directory this call made, in a place nobody
/// else can enter, is ever given the sharing mode.
///
/// The member's move happens at an exact call, through an action armed on the test's
/// ``FileLayerDriver``: no timing.
final class DirectoryCreationSwapTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: FilePath { FilePath(directory.path) }
    /// The victim's private directory beside the one being made, holding a file (as the bind
    /// directory holds its socket).
    private var privateDirectory: FilePath { root.appending(".chan.bind-0123456789abcdef") }

    override func setUpWithError() throws {
        #if DEBUG
        directory = try TemporaryDirectory(prefix: "groupvault-mkdir-swap")
        XCTAssertEqual(mkdir(privateDirectory.string, 0o700), 0)
        XCTAssertEqual(chmod(privateDirectory.string, 0o700), 0)
        try FileInspection.write([1], to: privateDirectory.appending("socket"))
        #else
        throw XCTSkip("the swaps are armed through FileLayerDriver, compiled out of release builds")
        #endif
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    // MARK: The member's move

    /// Arms, on `driver`, `move` to run just before the first `open` that follows the first
    /// `mkdir` of the operation: between making a directory and opening what was made.
    private static func afterTheFirstMkdir(_ driver: FileLayerDriver, _ move: @escaping @Sendable () -> Void) {
        driver.run(before: .call(.makeDirectory)) {
            driver.run(before: .call(.open), move)
        }
    }

    /// Renames `path` to `target` in the same directory; a failure (nothing at `path` yet) is
    /// part of the race, not of the test.
    private static func move(_ path: FilePath, to target: FilePath) {
        _ = path.withPlatformString { from in target.withPlatformString { to in rename(from, to) } }
    }

    /// The member renames whatever was just made in `root` (the entries not in `before`)
    /// aside, and the victim's private directory to its name.
    private static func replaceWhateverWasJustMade(in root: FilePath, before: [String], with privateDirectory: FilePath) {
        for made in FileInspection.names(in: root) where !before.contains(made) {
            move(root.appending(made), to: root.appending(made + ".moved"))
            move(privateDirectory, to: root.appending(made))
            return
        }
    }

    /// The victim's private directory, wherever in `root` it was renamed to: its mode, and
    /// whether its file is still in it.
    private func privateDirectoryAfterwards(inode: UInt64) throws -> (mode: UInt16, hasItsFile: Bool)? {
        for name in FileInspection.names(in: root) {
            let entry = root.appending(name)
            guard let status = try Syscall.statusIfPresent(entry), UInt64(status.inode.rawValue) == inode else { continue }
            return (UInt16(status.permissions.rawValue) & 0o7777, (try Syscall.statusIfPresent(entry.appending("socket"))) != nil)
        }
        return nil
    }

    private func privateInode() throws -> UInt64 {
        UInt64(try XCTUnwrap(try Syscall.statusIfPresent(privateDirectory)).inode.rawValue)
    }

    /// The private directory is still there, still 0700, its file in it.
    private func assertThePrivateDirectoryIsUntouched(inode: UInt64, file: StaticString = #filePath, line: UInt = #line) throws {
        let found = try XCTUnwrap(try privateDirectoryAfterwards(inode: inode), "the private directory is gone", file: file, line: line)
        XCTAssertEqual(found.mode, 0o700,
                       "the victim's private directory, renamed in, was given mode \(String(found.mode, radix: 8))", file: file, line: line)
        XCTAssertTrue(found.hasItsFile, file: file, line: line)
    }

    // MARK: DirectoryHandle.subdirectory(creating:)

    /// The red team's move (finding 7): the private directory is renamed to the new directory's
    /// own name right after the `mkdirat`.
    func testAPrivateDirectoryRenamedToTheNewNameAfterMkdirIsNotOpenedToTheGroup() throws {
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let inode = try privateInode()
        let made = root.appending("GroupMessaging")
        let privateDirectory = self.privateDirectory

        FileLayerDriver.with { driver in
            Self.afterTheFirstMkdir(driver) {
                Self.move(made, to: FilePath(made.string + ".moved"))
                Self.move(privateDirectory, to: made)
            }
            _ = try? shared.subdirectory(creating: "GroupMessaging")
        }

        try assertThePrivateDirectoryIsUntouched(inode: inode)
    }

    /// The same move at whatever name the `mkdirat` used (a temporary one included, which a
    /// member watching the directory learns as soon as it exists).
    func testAPrivateDirectoryRenamedInPlaceOfWhateverMkdirMadeIsNotOpenedToTheGroup() throws {
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let inode = try privateInode()
        let (root, privateDirectory) = (self.root, self.privateDirectory)
        let before = FileInspection.names(in: root)

        let created = FileLayerDriver.with { driver in
            Self.afterTheFirstMkdir(driver) { Self.replaceWhateverWasJustMade(in: root, before: before, with: privateDirectory) }
            return try? shared.subdirectory(creating: "GroupMessaging")
        }

        try assertThePrivateDirectoryIsUntouched(inode: inode)
        if created != nil {
            XCTAssertEqual(try FileInspection.mode(of: root.appending("GroupMessaging")), 0o2770)
            XCTAssertEqual(FileInspection.names(in: root.appending("GroupMessaging")), [], "a new, empty directory")
        }
    }

    // MARK: SafeDirectory.ensure

    func testEnsureDoesNotOpenAPrivateDirectoryRenamedToTheNewNameAfterMkdirToTheGroup() throws {
        let inode = try privateInode()
        let made = root.appending("GroupMessaging")
        let privateDirectory = self.privateDirectory

        FileLayerDriver.with { driver in
            Self.afterTheFirstMkdir(driver) {
                Self.move(made, to: FilePath(made.string + ".moved"))
                Self.move(privateDirectory, to: made)
            }
            _ = try? SafeDirectory.ensure(made, sharing: .unixGroup)
        }

        try assertThePrivateDirectoryIsUntouched(inode: inode)
    }

    func testEnsureDoesNotOpenAPrivateDirectoryRenamedInPlaceOfWhateverMkdirMadeToTheGroup() throws {
        let inode = try privateInode()
        let (root, privateDirectory) = (self.root, self.privateDirectory)
        let before = FileInspection.names(in: root)

        let created = FileLayerDriver.with { driver in
            Self.afterTheFirstMkdir(driver) { Self.replaceWhateverWasJustMade(in: root, before: before, with: privateDirectory) }
            return try? SafeDirectory.ensure(root.appending("GroupMessaging"), sharing: .unixGroup)
        }

        try assertThePrivateDirectoryIsUntouched(inode: inode)
        if created != nil {
            XCTAssertEqual(try FileInspection.mode(of: root.appending("GroupMessaging")), 0o2770)
            XCTAssertEqual(FileInspection.names(in: root.appending("GroupMessaging")), [], "a new, empty directory")
        }
    }

    // MARK: What a creation leaves

    /// Creating a directory leaves the new directory and nothing else: no staging directory.
    func testCreatingASubdirectoryLeavesNoStagingDirectoryBehind() throws {
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let before = FileInspection.names(in: root)

        _ = try shared.subdirectory(creating: "GroupMessaging")
        try SafeDirectory.ensure(root.appending("Library/Caches"), sharing: .unixGroup)

        XCTAssertEqual(FileInspection.names(in: root), (before + ["GroupMessaging", "Library"]).sorted())
        XCTAssertEqual(FileInspection.names(in: root.appending("Library")), ["Caches"])
        XCTAssertEqual(try FileInspection.mode(of: root.appending("GroupMessaging")), 0o2770)
        XCTAssertEqual(try FileInspection.mode(of: root.appending("Library/Caches")), 0o2770)
    }

    /// A creation that fails at any of its calls after the staging directory was made removes
    /// everything it made and reports the failure.
    func testACreationFailingAfterItsFirstMkdirRemovesEverythingItMade() throws {
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let before = FileInspection.names(in: root)
        let failures: [(SystemCall, passes: Int)] = [
            (.open, 1), (.status, 0), (.makeDirectory, 1), (.open, 2), (.status, 1), (.status, 2), (.changeMode, 0), (.rename, 0),
        ]

        for (call, passes) in failures {
            XCTAssertThrowsError(try FileLayerDriver.with { driver throws(StorageError) in
                driver.fail(.call(call), with: .ioError, afterPassing: passes)
                return try shared.subdirectory(creating: "GroupMessaging")
            }, "\(call)") { error in
                XCTAssertEqual((error as? StorageError)?.kind, .system(.ioError), "\(call)")
            }
            XCTAssertEqual(FileInspection.names(in: root), before, "after a failed \(call)")
        }
    }

    /// Another process makes the name while the new directory is being made: theirs is vetted
    /// as found and its mode left alone; the one made here is removed.
    func testANameTakenBeforeThePublishIsVettedAsFoundAndNotChanged() throws {
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let before = FileInspection.names(in: root)
        let made = root.appending("GroupMessaging")

        let handle = try FileLayerDriver.with { driver throws(StorageError) in
            driver.run(before: .call(.rename)) {
                XCTAssertEqual(mkdir(made.string, 0o700), 0)
                XCTAssertEqual(chmod(made.string, 0o750), 0)
            }
            return try shared.subdirectory(creating: "GroupMessaging")
        }

        XCTAssertEqual(try FileInspection.mode(of: made), 0o750)
        let held = try Syscall.status(handle.descriptor)
        XCTAssertEqual(held.inode, try XCTUnwrap(try Syscall.statusIfPresent(made)).inode, "the handle is of theirs")
        XCTAssertEqual(FileInspection.names(in: root), (before + ["GroupMessaging"]).sorted())
    }

    /// Where the file system has no `RENAME_NOREPLACE` (EINVAL), the directory is published
    /// with a plain rename to a name seen free, with its mode.
    func testWithoutRenameNoReplaceTheDirectoryIsPublishedWithItsMode() throws {
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let before = FileInspection.names(in: root)

        _ = try FileLayerDriver.with { driver throws(StorageError) in
            driver.fail(.call(.rename), with: .invalidArgument)
            return try shared.subdirectory(creating: "GroupMessaging")
        }

        XCTAssertEqual(try FileInspection.mode(of: root.appending("GroupMessaging")), 0o2770)
        XCTAssertEqual(FileInspection.names(in: root), (before + ["GroupMessaging"]).sorted())
    }

    /// The member swaps in, for the staging directory, a private directory of the victim's
    /// whose group is another (setgid, so what is made in it takes that group): the directory
    /// made in it would be opened to that group, so it is not published.
    func testADirectoryThatGotAnotherGroupFromASwappedStagingDirectoryIsNotPublished() throws {
        try XCTSkipUnless(geteuid() == 0, "giving the private directory another group needs root")
        XCTAssertEqual(chown(privateDirectory.string, uid_t.max, 4242), 0)
        XCTAssertEqual(chmod(privateDirectory.string, 0o2700), 0)
        let shared = try DirectoryHandle(opening: root, sharing: .unixGroup)
        let (root, privateDirectory) = (self.root, self.privateDirectory)
        let before = FileInspection.names(in: root)

        XCTAssertThrowsError(try FileLayerDriver.with { driver throws(StorageError) in
            Self.afterTheFirstMkdir(driver) { Self.replaceWhateverWasJustMade(in: root, before: before, with: privateDirectory) }
            return try shared.subdirectory(creating: "GroupMessaging")
        }) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .outsideSharedGroup(owner: 0, group: 4242))
        }
        XCTAssertNil(try Syscall.statusIfPresent(root.appending("GroupMessaging")), "nothing was published")
    }
}
