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
}
