import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// The channel server's socket file in a shared (`unixGroup`) container, against another member
/// of the group (uid 4242, in this process's group) who renames things over its name while the
/// server binds it.
final class ChannelSocketFileTests: XCTestCase {
    private var sandbox: MessagingSandbox!
    private var shared: Keyring!
    /// A file of the server's user outside the container, mode 0640: what the attacker aims at.
    private var victim: String!

    override func setUpWithError() throws {
        try XCTSkipUnless(geteuid() == 0, "playing a second member of the group needs root")
        sandbox = try MessagingSandbox()
        // The member must be able to reach the container: the home is the group's too.
        XCTAssertEqual(chmod(sandbox.home.path, 0o750), 0)
        shared = Keyring(identity: sandbox.keyring.identity, home: KeyringHome(root: sandbox.home.url, sharing: .unixGroup))
        victim = sandbox.home.path + "/victim"
        XCTAssertTrue(FileManager.default.createFile(atPath: victim, contents: Data("private".utf8)))
        XCTAssertEqual(chmod(victim, 0o640), 0)
    }

    override func tearDown() { sandbox?.remove() }

    func testASymlinkSwappedOverTheFreshSocketIsNotChmodded() async throws {
        let name = try GroupIPCName(.socket, "sw", in: MessagingSandbox.group, keyring: shared)
        let server = try? await startServer(name) { try self.memberPlants(.symlink, at: name.rawValue) }
        await server?.close()
        XCTAssertEqual(try mode(of: victim), 0o640, "the server changed the mode of the file the planted link points to")
    }

    func testAHardLinkSwappedOverTheFreshSocketIsNotChmodded() async throws {
        let name = try GroupIPCName(.socket, "hl", in: MessagingSandbox.group, keyring: shared)
        // Planted by this (root) process: fs.protected_hardlinks keeps uid 4242 from linking a
        // file it cannot write, but a member may link one it can, and not every system sets it.
        let server = try? await startServer(name) {
            let temporary = name.rawValue + ".planted"
            XCTAssertEqual(link(self.victim, temporary), 0)
            XCTAssertEqual(rename(temporary, name.rawValue), 0)
        }
        await server?.close()
        XCTAssertEqual(try mode(of: victim), 0o640, "the server changed the mode of the file the planted hard link names")
    }

    func testANamePlantedWhileTheServerBindsIsRefusedAndLeftAlone() async throws {
        let name = try GroupIPCName(.socket, "pl", in: MessagingSandbox.group, keyring: shared)
        do {
            let server = try await startServer(name) { try self.memberPlants(.symlink, at: name.rawValue) }
            await server.close()
            XCTFail("the server started over a name another process took while it was binding")
        } catch let error as GroupMessagingError {
            XCTAssertEqual(error.code, .addressInUse, "\(error)")
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: name.rawValue), victim, "the planted link was left alone")
    }

    func testTheSocketGetsTheGroupModeAndNoPrivateDirectoryIsLeft() async throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let name = try GroupIPCName(.socket, "md", in: MessagingSandbox.group, keyring: shared)
        let server = try await GroupChannelServer.start(name, keyring: shared, accepting: GroupMessageTypes())
        XCTAssertEqual(try mode(of: name.rawValue), 0o660)
        let container = (name.rawValue as NSString).deletingLastPathComponent
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: container).filter { $0.contains(".bind-") }, [])
        await server.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: name.rawValue), "close() removes the socket it bound")
    }

    func testTheSocketBelongsToTheContainersGroupNotTheServersOwn() async throws {
        // The home belongs to group 4242 (setgid), so the container made in it does too: the
        // members' group, not this server's own (0). Putting only the container in 4242 would
        // be a container in another group than its home's, which is refused.
        XCTAssertEqual(chown(sandbox.home.path, geteuid(), 4242), 0)
        XCTAssertEqual(chmod(sandbox.home.path, 0o2770), 0)
        let name = try GroupIPCName(.socket, "gr", in: MessagingSandbox.group, keyring: shared)
        let container = (name.rawValue as NSString).deletingLastPathComponent
        _ = try shared.containerURL(for: MessagingSandbox.group)
        var containerStatus = stat()
        XCTAssertEqual(lstat(container, &containerStatus), 0)
        XCTAssertEqual(containerStatus.st_gid, 4242, "the arrangement: the container inherits the home's group")
        let server = try await GroupChannelServer.start(name, keyring: shared, accepting: GroupMessageTypes())
        var status = stat()
        XCTAssertEqual(lstat(name.rawValue, &status), 0)
        XCTAssertEqual(status.st_gid, 4242, "the group's members connect through the container's group")
        await server.close()
    }

    func testAFailedPublicationLeavesNeitherTheSocketNorThePrivateDirectory() async throws {
        let name = try GroupIPCName(.socket, "fp", in: MessagingSandbox.group, keyring: shared)
        // Process-wide for the length of the call: the start is asynchronous, and a thread-bound
        // fault (`withFault`) is for synchronous bodies.
        let refusal = try await FaultInjection.withProcessWideFault(.fail(.permissionDenied), at: .call(.link)) { () async throws -> GroupMessagingError? in
            do {
                let server = try await GroupChannelServer.start(name, keyring: shared, accepting: GroupMessageTypes())
                await server.close()
                return nil
            } catch let error as GroupMessagingError {
                return error
            }
        }
        XCTAssertEqual(try XCTUnwrap(refusal, "the server started though its socket could not be linked into the container").code, .system)
        let container = (name.rawValue as NSString).deletingLastPathComponent
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: container).filter { $0.hasPrefix(name.name) || $0.contains(".bind-") },
                       ["fp.lock"], "only the startup lock file stays")
    }

    func testAHardLinkPlantedAsTheStartupLockIsRefusedAndItsTargetLeftAlone() async throws {
        let name = try GroupIPCName(.socket, "lk", in: MessagingSandbox.group, keyring: shared)
        _ = try shared.containerURL(for: MessagingSandbox.group)  // creates the container
        XCTAssertEqual(link(victim, name.rawValue + ".lock"), 0)
        do {
            let server = try await GroupChannelServer.start(name, keyring: shared, accepting: GroupMessageTypes())
            await server.close()
            XCTFail("the server took a hard link to another file as its lock")
        } catch {
            XCTAssertTrue(error.reason.contains("hard links"), "\(error)")
        }
        XCTAssertEqual(try mode(of: victim), 0o640)
    }

    // MARK: Arrangement

    private enum Planted: String { case symlink }

    private func startServer(_ name: GroupIPCName, whileBinding: @escaping () throws -> Void) async throws -> GroupChannelServer {
        try await GroupChannelServer.start(name, keyring: shared, accepting: GroupMessageTypes(), whileBinding: {
            do { try whileBinding() } catch { XCTFail("the member's move failed: \(error)") }
        })
    }

    /// uid 4242, whose only group is this process's, puts a link to the victim at `path`.
    private func memberPlants(_ kind: Planted, at path: String) throws {
        let member = try FixtureProcess(
            ["plant", "--at", path, "--target", victim, "--kind", kind.rawValue, "--uid", "4242", "--gid", "\(getegid())"],
            environment: ["GROUPVAULT_HOME": sandbox.home.path], executable: "GroupMessagingFixture")
        XCTAssertEqual(member.wait(), 0, member.standardError)
    }

    private func mode(of path: String) throws -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return status.st_mode & 0o7777
    }
}
