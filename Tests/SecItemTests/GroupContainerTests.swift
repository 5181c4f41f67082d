// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import Keyring
import Security
import XCTest

/// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` with iOS semantics.
final class GroupContainerTests: SecItemTestCase {
    func testEntitledGroupGivesAnExistingDirectory() throws {
        let url = try XCTUnwrap(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.applicationGroup))
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory))
        XCTAssertTrue(isDirectory.boolValue)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.appendingPathComponent("Library/Caches").path))
    }

    func testSameGroupGivesTheSameURL() {
        let first = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.applicationGroup)
        XCTAssertNotNil(first)
        XCTAssertEqual(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.applicationGroup), first)
    }

    func testNotEntitledGroupIsNil() {
        XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.other"))
    }

    func testKeychainAccessGroupUsedAsContainerIsNilWithAnExplanation() {
        XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.sharedAccessGroup))
        let reason = ProcessKeyring.lastError?.reason ?? ""
        XCTAssertTrue(reason.contains(Self.applicationGroup), "the reason lists the application groups: \(reason)")
    }

    func testMalformedGroupIsNil() {
        XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "../../etc"))
    }
}
#endif
