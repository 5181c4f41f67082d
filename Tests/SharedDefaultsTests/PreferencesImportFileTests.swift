import Foundation
import XCTest

@testable import SharedDefaults

/// Issue 18: the preferences import read its file by path and removed it by path. It must
/// read exactly one regular file of this user that nobody else can write, never through a
/// symbolic link, and remove only that file.
final class PreferencesImportFileTests: XCTestCase {
    private var sandbox: DefaultsSandbox!

    override func setUpWithError() throws { sandbox = try DefaultsSandbox() }
    override func tearDown() { sandbox.remove() }

    /// An XML preferences file `{ theme: "dark" }` named `name` in the sandbox.
    private func writePreferences(named name: String = "group.com.example.shared.plist") throws -> URL {
        let url = sandbox.directory.url.appendingPathComponent(name)
        try PropertyListSerialization.data(fromPropertyList: ["theme": "dark"], format: .xml, options: 0).write(to: url)
        return url
    }

    /// Imports `url`, which must be refused as `storage` with a reason containing `reason`;
    /// nothing may be imported.
    private func assertNotImported(_ url: URL, because reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let defaults = try sandbox.defaults()
        do {
            let plan = try defaults.importPreferences(from: url)
            XCTFail("expected a refusal, got \(plan)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .storage, "\(error)", file: file, line: line)
            XCTAssertTrue(error.reason.contains(reason), error.reason, file: file, line: line)
        }
        XCTAssertNil(defaults.object(forKey: "theme"), "nothing was imported", file: file, line: line)
    }

    func testASymbolicLinkInPlaceOfThePreferencesFileIsNotFollowedNorRemoved() throws {
        let target = try writePreferences(named: "elsewhere.plist")
        let link = sandbox.directory.url.appendingPathComponent("group.com.example.shared.plist")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        try assertNotImported(link, because: "symbolic link")
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link.path), "the link stays")
        XCTAssertTrue(FileManager.default.fileExists(atPath: target.path), "the target stays")
    }

    func testAPreferencesFileOthersCanWriteIsNotImported() throws {
        let url = try writePreferences()
        XCTAssertEqual(chmod(url.path, 0o666), 0)

        try assertNotImported(url, because: "others can write it")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
    }

    func testAPreferencesFileWithASecondHardLinkIsNotImported() throws {
        let url = try writePreferences()
        XCTAssertEqual(link(url.path, sandbox.directory.url.appendingPathComponent("other-name").path), 0)

        try assertNotImported(url, because: "2 hard links")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
    }

    func testAPreferencesFileOfAnotherUserIsNotImported() throws {
        try XCTSkipUnless(geteuid() == 0, "giving a file to another user needs root")
        let url = try writePreferences()
        XCTAssertEqual(chown(url.path, 12345, 12345), 0)

        try assertNotImported(url, because: "owned by user 12345")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
    }

    func testAFIFOInPlaceOfThePreferencesFileIsRefusedWithoutBlocking() throws {
        let url = sandbox.directory.url.appendingPathComponent("group.com.example.shared.plist")
        XCTAssertEqual(mkfifo(url.path, 0o600), 0)

        try assertNotImported(url, because: "not a regular file")
    }

    func testAFileReplacedAfterItWasReadIsNotRemoved() throws {
        let url = try writePreferences()
        let newer = try writePreferences(named: "newer.plist")
        do {
            try PreferencesFile.withContents(of: url.path, maximumSize: PreferencesImport.maximumFileSize, whenAbsent: { XCTFail("the file exists") }) {
                (bytes: [UInt8], remove: () throws(SharedDefaultsError) -> Void) throws(SharedDefaultsError) in
                XCTAssertFalse(bytes.isEmpty)
                // Another writer replaces the file between the read and the removal.
                XCTAssertEqual(rename(newer.path, url.path), 0)
                try remove()
            }
            XCTFail("expected the removal to be refused")
        } catch {
            XCTAssertEqual(error.code, .storage, "\(error)")
            XCTAssertTrue(error.reason.contains("was replaced after it was read"), error.reason)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "the newer file is kept")
    }

    func testAnImportedFileIsRemovedRelativeToItsDirectory() throws {
        let url = try writePreferences()
        let plan = try sandbox.defaults().importPreferences(from: url)
        XCTAssertTrue(plan.fileRemoved)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        XCTAssertEqual(try sandbox.defaults().string(forKey: "theme"), "dark")
    }
}
