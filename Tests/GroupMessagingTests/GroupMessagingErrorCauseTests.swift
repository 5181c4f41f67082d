import Foundation
import GroupMessaging
import GroupVaultTestKit
import Keyring
import SealedStorage
import XCTest

/// A GroupMessaging error keeps what it was made from as a value, under the name every
/// GroupVault error uses; its codes, and the channel's violation kinds, are extensible structs
/// that keep the names and raw values the enums had.
final class GroupMessagingErrorCauseTests: XCTestCase {
    private var sandbox: MessagingSandbox!

    override func setUpWithError() throws { sandbox = try MessagingSandbox() }
    override func tearDown() { sandbox.remove() }

    func testAPostRefusedOverAHardLinkKeepsTheStorageError() throws {
        let center = try GroupNotificationCenter(keyring: sandbox.keyring, group: MessagingSandbox.group)
        let directory = sandbox.home.path + "/Group Containers/\(MessagingSandbox.group)/GroupMessaging/notifications"
        let target = sandbox.home.path + "/target"
        XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data()))
        XCTAssertEqual(link(target, directory + "/linked"), 0)
        XCTAssertThrowsError(try center.post("linked")) { error in
            let refusal = error as? GroupMessagingError
            XCTAssertEqual(refusal?.code, .system, "\(error)")
            XCTAssertNotNil(refusal?.cause(as: StorageError.self), "\(error)")
        }
    }

    func testAKeyringFailureKeepsTheKeyringErrorAndItsRemedy() {
        let locked = KeyringError(.interactionNotAllowed, "locked", underlyingError: nil, remedy: .unlock)
        let error = GroupMessagingError(.keyring, "open the channel key: \(locked)", underlyingError: locked, remedy: locked.remedy)
        XCTAssertEqual(error.underlyingError as? KeyringError, locked)
        XCTAssertEqual(error.nearestRemedy, .unlock)
    }

    func testACodeIsNamedByTheRawValueTheEnumCaseHad() {
        XCTAssertEqual(GroupMessagingError.Code(rawValue: "timedOut"), .timedOut)
        XCTAssertEqual(GroupMessagingError.Code.protocolViolation.rawValue, "protocolViolation")
    }

    func testAChannelViolationKindIsNamedByTheRawValueTheEnumCaseHad() {
        XCTAssertEqual(ChannelProtocolError.Kind(rawValue: "outOfOrder"), .outOfOrder)
        XCTAssertEqual(ChannelProtocolError(.badHandshake, "wrong magic").description, "badHandshake: wrong magic")
    }
}
