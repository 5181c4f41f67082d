// These tests exercise the Linux emulator; on Apple platforms SecItem is the real framework.
#if !canImport(Darwin)
import Foundation
import GroupVaultTestKit
import XCTest

/// README, "Testing your own keychain code": `Bundle.main.bundleIdentifier` is nil for a bare
/// Linux executable such as the `swift test` binary, and an `Info.plist` with
/// `CFBundleIdentifier` beside the binary provides one. Foundation reads it once, before any
/// test code runs, so the proof runs a copy of an executable in a directory of its own.
final class MainBundleIdentifierTests: XCTestCase {
    private func bundleIdentifier(ofCopyIn directory: URL, infoPlist: [String: Any]?) throws -> String {
        let copy = directory.appendingPathComponent("GroupVaultFixture")
        try FileManager.default.copyItem(at: FixtureProcess.executableURL, to: copy)
        if let infoPlist {
            let data = try PropertyListSerialization.data(fromPropertyList: infoPlist, format: .xml, options: 0)
            try data.write(to: directory.appendingPathComponent("Info.plist"))
        }
        let process = Process()
        let output = Pipe()
        process.executableURL = copy
        process.arguments = ["bundle-identifier"]
        process.standardOutput = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testBareExecutableHasNoBundleIdentifier() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        XCTAssertEqual(try bundleIdentifier(ofCopyIn: directory.url, infoPlist: nil), "bundle-identifier nil")
    }

    func testInfoPlistBesideTheExecutableProvidesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let identifier = try bundleIdentifier(ofCopyIn: directory.url, infoPlist: ["CFBundleIdentifier": "com.example.app"])
        XCTAssertEqual(identifier, "bundle-identifier com.example.app")
    }
}
#endif
